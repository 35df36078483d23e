"""TVM's topi names added with TVM's signatures, each compiled through te.create_prim_func +
tvm.build and compared with numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(0)


def run(ins, outs, arrays):
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    f = tvm.build(te.create_prim_func([*ins, *outs]), target="llvm")
    res = [np.zeros(topi.get_const_tuple(o.shape), o.dtype) for o in outs]
    f["main"](*arrays, *res)
    return res if len(res) > 1 else res[0]


def ph(arr, name="x"):
    return te.placeholder(arr.shape, str(arr.dtype), name=name)


def test_creators():
    np.testing.assert_allclose(run([], topi.arange(2, 11, 3, "float32"), []),
                               np.arange(2, 11, 3, dtype="float32"))
    np.testing.assert_array_equal(run([], topi.arange(5, dtype="int32"), []), np.arange(5))
    np.testing.assert_array_equal(run([], topi.eye(3, 4, 1, "int32"), []), np.eye(3, 4, 1))
    x = RNG.standard_normal((3, 4)).astype("float32")
    X = ph(x)
    np.testing.assert_array_equal(run([X], topi.full_like(X, 2.5), [x]), np.full_like(x, 2.5))
    np.testing.assert_array_equal(run([X], topi.trilu(X, 1, True), [x]), np.triu(x, 1))
    np.testing.assert_array_equal(run([X], topi.trilu(X, 0, False), [x]), np.tril(x))


def test_bool_reductions_and_argmin():
    b = RNG.random((3, 5)) > 0.3
    B = ph(b)
    np.testing.assert_array_equal(run([B], topi.all(B, axis=1), [b]), b.all(1))
    np.testing.assert_array_equal(run([B], topi.any(B, axis=0, keepdims=True), [b]),
                                  b.any(0, keepdims=True))
    x = RNG.standard_normal((4, 6)).astype("float32")
    X = ph(x)
    np.testing.assert_array_equal(run([X], topi.argmin(X, axis=1), [x]), x.argmin(1))
    with pytest.raises(NotImplementedError):
        topi.argmin(X, 1, select_last_index=True)


def test_elementwise_log_mod_fast():
    x = (RNG.random(8) * 5 + 0.5).astype("float32")
    y = (RNG.random(8) * 2 + 0.5).astype("float32")
    X, Y = ph(x), ph(y, "y")
    np.testing.assert_allclose(run([X], topi.log2(X), [x]), np.log2(x), rtol=1e-6)
    np.testing.assert_allclose(run([X], topi.log10(X), [x]), np.log10(x), rtol=1e-6)
    np.testing.assert_allclose(run([X, Y], topi.mod(X, Y), [x, y]), np.fmod(x, y), rtol=1e-6)
    np.testing.assert_allclose(run([X], topi.fast_exp(X), [x]), np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(run([X], topi.fast_tanh(X), [x]), np.tanh(x), rtol=1e-5)
    xs = [ph(RNG.standard_normal((2, 3)).astype("float32"), f"a{k}") for k in range(3)]
    arrs = [RNG.standard_normal((2, 3)).astype("float32") for _ in range(3)]
    np.testing.assert_allclose(run(xs, topi.elemwise_sum(xs), arrs), sum(arrs), rtol=1e-6)


def test_squeeze_split_shape_size():
    x = RNG.standard_normal((1, 6, 1, 2)).astype("float32")
    X = ph(x)
    np.testing.assert_array_equal(run([X], topi.squeeze(X), [x]), x.squeeze())
    np.testing.assert_array_equal(run([X], topi.squeeze(X, 2), [x]), x.squeeze(2))
    with pytest.raises(topi.InvalidShapeError, match="axis 1"):
        topi.squeeze(X, 1)
    parts = run([X], topi.split(X, 3, axis=1), [x])
    for got, ref in zip(parts, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got, ref)
    parts = run([X], topi.split(X, [1, 4], axis=1), [x])
    for got, ref in zip(parts, np.split(x, [1, 4], axis=1)):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(run([X], topi.shape(X), [x]), [1, 6, 1, 2])
    assert run([X], topi.tensor_size(X, "int64"), [x]) == 12
    assert topi.get_const_tuple(X.shape) == (1, 6, 1, 2)


def test_scans_sort_topk():
    x = RNG.standard_normal((3, 5)).astype("float32")
    X = ph(x)
    np.testing.assert_allclose(run([X], topi.cumsum(X, axis=1), [x]), np.cumsum(x, 1),
                               rtol=1e-5)
    np.testing.assert_allclose(run([X], topi.cumprod(X, axis=0, exclusive=True), [x]),
                               np.concatenate([np.ones((1, 5)), np.cumprod(x, 0)[:-1]]),
                               rtol=1e-5)
    np.testing.assert_array_equal(run([X], topi.sort(X, axis=1), [x]), np.sort(x, 1))
    np.testing.assert_array_equal(run([X], topi.argsort(X, axis=1, is_ascend=0, dtype="int32"),
                                      [x]), np.argsort(-x, 1))
    vals, idx = run([X], topi.topk(X, 2, axis=1), [x])
    np.testing.assert_array_equal(idx, np.argsort(-x, 1)[:, :2])
    np.testing.assert_array_equal(vals, -np.sort(-x, 1)[:, :2])


def test_einsum_tensordot_expand_collapse():
    a = RNG.standard_normal((2, 3, 4)).astype("float32")
    b = RNG.standard_normal((4, 5)).astype("float32")
    A, B = ph(a, "a"), ph(b, "b")
    np.testing.assert_allclose(run([A, B], topi.einsum("ijk,kl->ijl", A, B), [a, b]),
                               np.einsum("ijk,kl->ijl", a, b), rtol=1e-5)
    np.testing.assert_allclose(run([A, B], topi.tensordot(A, B, 1), [a, b]),
                               np.tensordot(a, b, 1), rtol=1e-5)
    np.testing.assert_allclose(run([A, B], topi.tensordot(A, B, ([2], [0])), [a, b]),
                               np.tensordot(a, b, ([2], [0])), rtol=1e-5)
    v = RNG.standard_normal(3).astype("float32")
    V = ph(v, "v")
    got = run([V, A], topi.expand_like(V, A, [0, 2]), [v, a])
    np.testing.assert_array_equal(got, np.broadcast_to(v[None, :, None], a.shape))
    np.testing.assert_allclose(run([A], topi.collapse_sum(A, (3, 1)), [a]),
                               a.sum(0).sum(1, keepdims=True), rtol=1e-5)


def test_gather_scatter_nd_reverse_sequence_meshgrid():
    x = RNG.standard_normal((3, 4)).astype("float32")
    ind = RNG.integers(0, 3, (2, 4)).astype("int64")
    X, Ind = ph(x), ph(ind, "ind")
    np.testing.assert_array_equal(run([X, Ind], topi.gather(X, 0, Ind), [x, ind]),
                                  np.take_along_axis(x, ind, 0))
    nd = np.array([[0, 2], [1, 3]], "int64")  # TVM's layout: (M, N): targets (0,1), (2,3)
    upd = np.array([10.0, 20.0], "float32")
    N, U = ph(nd, "nd"), ph(upd, "u")
    ref = x.copy()
    ref[0, 1], ref[2, 3] = 10.0, 20.0
    np.testing.assert_array_equal(run([X, N, U], topi.scatter_nd(X, N, U, "update"),
                                      [x, nd, upd]), ref)
    lens = np.array([2, 4, 1], "int32")
    L = ph(lens, "lens")
    ref = x.copy()
    for b, n in enumerate(lens):
        ref[b, :n] = x[b, :n][::-1]
    np.testing.assert_array_equal(run([X, L], topi.reverse_sequence(X, L, 1, 0), [x, lens]),
                                  ref)
    p, q = np.arange(3, dtype="float32"), np.arange(4, dtype="float32")
    P, Q = ph(p, "p"), ph(q, "q")
    for got, ref in zip(run([P, Q], topi.meshgrid([P, Q], "xy"), [p, q]),
                        np.meshgrid(p, q, indexing="xy")):
        np.testing.assert_array_equal(got, ref)


def test_hamming_window():
    got = run([], topi.hamming_window(6, 1, 0.54, 0.46, "float32"), [])
    n = np.arange(6)
    np.testing.assert_allclose(got, 0.54 - 0.46 * np.cos(2 * np.pi * n / 6), rtol=1e-5,
                               atol=1e-6)


def test_index_tensor_put_slice_scatter_bitwise_and_reexports():
    x = RNG.standard_normal((4, 3)).astype("float32")
    rows, cols = np.array([3, 0, 3], "int64"), np.array([1, 2, 0], "int64")
    X, R, C = ph(x), ph(rows, "r"), ph(cols, "c")
    np.testing.assert_array_equal(run([X, R, C], topi.index_tensor(X, [R, C]), [x, rows, cols]),
                                  x[rows, cols])
    v = np.array([1.0, 2.0, 4.0], "float32")
    V = ph(v, "v")
    ref = x.copy()
    np.add.at(ref, (rows, cols), v)
    np.testing.assert_allclose(run([X, R, C, V], topi.index_put(X, (R, C), V, True),
                                   [x, rows, cols, v]), ref, rtol=1e-6)
    ref = x.copy()
    ref[rows, cols] = v
    np.testing.assert_array_equal(run([X, R, C, V], topi.index_put(X, (R, C), V),
                                      [x, rows, cols, v]), ref)
    s = RNG.standard_normal((2, 3)).astype("float32")
    S = ph(s, "s")
    ref = x.copy()
    ref[0:4:2] = s
    np.testing.assert_array_equal(run([X, S], topi.slice_scatter(X, S, 0, 4, 2, 0), [x, s]), ref)
    a, b = np.array([5, 12, -3], "int32"), np.array([3, 10, 6], "int32")
    A, Bt = ph(a, "a"), ph(b, "b")
    np.testing.assert_array_equal(run([A, Bt], topi.bitwise_xor(A, Bt), [a, b]), a ^ b)
    np.testing.assert_array_equal(run([A, Bt], topi.left_shift(A, Bt), [a, b]), a << b)
    assert topi.Cast is tvm.tir.Cast
    n = tvm.tir.Var("n", "int32")
    assert isinstance(topi.floordiv(n, 2), tvm.tir.PrimExpr)
    assert topi.Callable is not None


def test_reinterpret_float_bits():
    x = np.array([1.0, -2.5, 0.0], "float32")
    X = ph(x)
    np.testing.assert_array_equal(run([X], topi.reinterpret(X, "int32"), [x]), x.view("int32"))


@pytest.mark.parametrize("name", ["acos", "acosh", "asin", "asinh", "atanh"])
def test_inverse_trig_refuses_integers(name):
    with pytest.raises(TypeError, match=rf"topi\.{name} only supports floating-point inputs, "
                                        "but got int16"):
        getattr(topi, name)(te.placeholder((2,), "int16", name="x"))


def test_repeated_compute_names_get_unique_block_names():
    a = te.placeholder((4,), name="a")
    b = te.compute((4,), lambda i: a[i] + 1.0, name="main")
    c = te.compute((4,), lambda i: b[i] * 2.0, name="main")
    f = te.create_prim_func([a, c])
    sch = tvm.s_tir.Schedule(f)
    assert sch.get(sch.get_sblock("main_1")).name_hint == "main_1"
    assert sch.get(sch.get_sblock("main")).name_hint == "main"
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(run([a], c, [x]), (x + 1) * 2)
