"""topi.scanop, stft, dyn_tile, sparse_reshape, fixed_point_multiply_per_axis and the arith
Analyzer, against numpy (and values TVM 0.27 gives for the same calls)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, tir, topi


def run(inputs, out, values):
    outs = out if isinstance(out, list) else [out]
    f = tvm.build(te.create_prim_func(inputs + outs), target="llvm")
    bufs = [tvm.nd.array(np.zeros([int(d) for d in o.shape], o.dtype)) for o in outs]
    f(*[tvm.nd.array(v) for v in values], *bufs)
    got = [b.numpy() for b in bufs]
    return got if isinstance(out, list) else got[0]


A_NP = np.arange(6, dtype="float32").reshape(2, 3)


def test_scanop_with_any_binary_op() -> None:
    a = te.placeholder((2, 3), "float32", name="a")
    got = run([a], topi.scanop(a, lambda x, y: x * y + 1, tir.const(1, "float32"), "sc",
                               axis=1), [A_NP])
    np.testing.assert_array_equal(got, [[0, 1, 3], [3, 13, 66]])  # as TVM
    excl = run([a], topi.scanop(a, tir.max, tir.const(-100, "float32"), "sc", axis=0,
                                exclusive=True), [A_NP])
    np.testing.assert_array_equal(excl, [[-100] * 3, [0, 1, 2]])
    flat = run([a], topi.scanop(a, lambda x, y: x + y, 0.0, "sc"), [A_NP])
    np.testing.assert_array_equal(flat, np.cumsum(A_NP))


@pytest.mark.parametrize("normalized,freqs", [(False, 5), (True, 8)])
def test_stft_matches_a_windowed_dft(normalized, freqs) -> None:
    d = te.placeholder((1, 16), "float32", name="d")
    w = te.placeholder((8,), "float32", name="w")
    data = np.arange(16, dtype="float32").reshape(1, 16) ** 1.5
    window = np.hanning(8).astype("float32")
    got = run([d, w], topi.stft(d, 8, 4, 8, w, normalized, freqs == 5, (1, freqs, 3, 2)),
              [data, window])
    frames = np.stack([data[0, t * 4:t * 4 + 8] * window for t in range(3)])
    spec = np.fft.fft(frames.astype(np.float64), axis=1)[:, :freqs].T
    want = np.stack([spec.real, spec.imag], axis=-1)[None] / (np.sqrt(8) if normalized else 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    assert round(float(got[0, 0, 0, 0]), 2) == (8.51 if normalized else 24.06)  # TVM's


def test_dyn_tile_fills_the_new_shape() -> None:
    a = te.placeholder((2, 3), "float32", name="a")
    np.testing.assert_array_equal(run([a], topi.dyn_tile(a, [4, 6], 2), [A_NP]),
                                  np.tile(A_NP, (2, 2)))
    np.testing.assert_array_equal(run([a], topi.dyn_tile(a, [2, 4, 6], 3), [A_NP]),
                                  np.tile(A_NP, (2, 2, 2)))


def test_sparse_reshape_moves_indices_and_resolves_minus_one() -> None:
    idx = te.placeholder((3, 2), "int64", name="idx")
    prev = te.placeholder((2,), "int64", name="prev")
    new = te.placeholder((3,), "int64", name="new")
    out = topi.sparse_reshape(idx, prev, new, (3, 3), (3,))
    indices = np.array([[0, 0], [1, 5], [3, 4]], "int64")
    got_idx, got_shape = run([idx, prev, new], out, [indices, np.array([4, 6], "int64"),
                                                     np.array([2, -1, 3], "int64")])
    np.testing.assert_array_equal(got_shape, [2, 4, 3])
    flat = indices[:, 0] * 6 + indices[:, 1]
    np.testing.assert_array_equal(got_idx, np.stack(np.unravel_index(flat, (2, 4, 3)), 1))


def test_fixed_point_multiply_per_axis_as_tvm() -> None:
    x = te.placeholder((2, 4), "int32", name="x")
    y, ls, rs = (te.placeholder((4,), "int32", name=n) for n in ("y", "ls", "rs"))
    values = [np.array([[100, -100, 12345, -7], [2 ** 20, -2 ** 20, 3, 1]], "int32"),
              np.array([2 ** 30, 2 ** 30 + 12345, 1518500250, 2 ** 31 - 1], "int32"),
              np.array([0, 1, 2, 3], "int32"), np.array([0, 1, 3, 2], "int32")]
    got = run([x, y, ls, rs], topi.fixed_point_multiply_per_axis(x, y, ls, rs, 1, 1, [1]),
              values)
    np.testing.assert_array_equal(got, [[50, -50, 4365, -14], [524288, -524294, 1, 2]])
    no_left = run([x, y, ls, rs], topi.fixed_point_multiply_per_axis(x, y, ls, rs, 0, 1, [1]),
                  values)
    np.testing.assert_array_equal(no_left, [[50, -25, 1091, -2], [524288, -262147, 0, 0]])


def test_the_arith_analyzer_simplifies_bounds_and_proves() -> None:
    a = tvm.arith.Analyzer()
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert a.simplify(x * 2 + x * 3 - x * 5 + 4).value == 4
    assert str(a.simplify(x * 2 + y - x + 3 - y)) == str(x + 3)
    a.bind(x, tvm.ir.Range(0, 10))
    bound = a.const_int_bound(x * 2 + 1)
    assert (bound.min_value, bound.max_value) == (1, 19)
    assert a.can_prove(x < 10) and not a.can_prove(x < 9) and not a.can_prove(y < 3)
    ms = a.modular_set(x * 4 + 2)
    assert (ms.coeff, ms.base) == (4, 2)
    with a.constraint_scope(x < 5):
        assert a.can_prove(x < 5)
    assert not a.can_prove(x < 5)
    assert tvm.topi.Analyzer is tvm.arith.Analyzer is tvm.sym.Analyzer


def test_tir_names_the_reducers_as_tvm_does() -> None:
    x = tir.Var("x", "int32")
    for space in (tvm.tir, tvm.tirx):
        assert str(space.max(x, 3)) == str(te.max(x, 3))
        assert str(space.min(x, 3)) == str(te.min(x, 3))
    a = te.placeholder((4,), "float32", name="a")
    k = te.reduce_axis((0, 4), "k")
    total = te.compute((1,), lambda i: tvm.tir.sum(a[k], axis=k), name="total")
    data = np.arange(4, dtype="float32")
    np.testing.assert_allclose(run([a], total, [data]), [data.sum()])


def test_extern_primfunc_computes_a_tensor_with_a_prim_func() -> None:
    from tvmlite.script import tir as T

    @T.prim_func
    def scale(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (8,), "float32")
        B = T.match_buffer(b, (8,), "float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(3)

    x = te.placeholder((8,), "float32", name="x")
    y = te.extern_primfunc([x], scale)
    z = te.compute((8,), lambda i: y[i] + 1, name="z")
    data = np.arange(8, dtype="float32")
    np.testing.assert_array_equal(run([x], z, [data]), data * 3 + 1)
    with pytest.raises(ValueError, match="no outputs"):
        te.extern_primfunc([x, z], scale)


def test_limits_are_tvms_finite_values_and_reductions_keep_infinities() -> None:
    assert tvm.te.max_value("float32").value == float(np.finfo("float32").max)
    assert tvm.tir.min_value("float16").value == -65504.0
    assert tvm.te.max_value("int8").value == 127
    a = te.placeholder((3,), "float32", name="a")
    k = te.reduce_axis((0, 3), "k")
    biggest = te.compute((1,), lambda i: te.max(a[k], axis=k), name="biggest")
    assert run([a], biggest, [np.full(3, -np.inf, "float32")])[0] == -np.inf  # as numpy
