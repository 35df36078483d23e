"""R.scatter_elements / R.scatter_nd legalized to TVM's flat-index kernels (topi/scatter_flat.py):
results against numpy for every reduction, repeated and negative indices, and TVM's form."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, topi
from tvmlite.script import relax as R


def _run(call_of, *arrays):
    params = [relax.Var(f"a{k}", R.Tensor(a.shape, str(a.dtype))) for k, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        gv = bb.emit(call_of(*params))
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    ex = relax.build(mod, target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*map(tvm.nd.array, arrays)).numpy()


_NP = {"update": lambda o, u: u, "add": lambda o, u: o + u, "mul": lambda o, u: o * u,
       "mean": lambda o, u: (o + u) / 2, "min": min, "max": max}


def _scatter_elements_ref(data, ind, upd, axis, reduction):
    out = data.copy()
    for p in np.ndindex(ind.shape):
        at = list(p)
        at[axis] = ind[p] % data.shape[axis]
        out[tuple(at)] = _NP[reduction](out[tuple(at)], upd[p])
    return out


@pytest.mark.parametrize("reduction", sorted(_NP))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_elements_matches_the_serial_reference(axis, reduction):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4, 5, 3)).astype("float32")
    shape = (3, 5, 3) if axis == 0 else (4, 2, 3) if axis == 1 else (2, 5, 2)
    ind = rng.integers(-3, 3, size=shape).astype("int64")  # repeats, negatives
    upd = rng.standard_normal(shape).astype("float32")
    got = _run(lambda d, i, u: R.scatter_elements(d, i, u, axis=axis, reduction=reduction),
               data, ind, upd)
    want = _scatter_elements_ref(data, ind, upd, axis % 3, reduction)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
def test_scatter_nd_matches_the_serial_reference(reduction):
    rng = np.random.default_rng(4)
    data = rng.standard_normal((4, 3, 2)).astype("float32")
    ind = np.array([[0, 1], [3, 2], [0, 1], [2, 0]], "int64")  # (Y, M) as relax takes it
    upd = rng.standard_normal((4, 2)).astype("float32")
    got = _run(lambda d, i, u: R.scatter_nd(d, i, u, reduction=reduction), data, ind, upd)
    want = data.copy()
    for y in range(4):
        at = tuple(ind[y])
        want[at] = [_NP[reduction](o, u) for o, u in zip(want[at], upd[y])]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_scatter_elements_with_indices_off_the_data_shape_takes_the_gather():
    """TVM's kernel walks the index dims as flat ranges of the data's; where they differ off
    the first axis and the scatter axis, the gather form computes it instead."""
    rng = np.random.default_rng(5)
    data = rng.standard_normal((4, 5, 3)).astype("float32")
    ind = rng.integers(-3, 3, size=(3, 2, 2)).astype("int64")
    upd = rng.standard_normal((3, 2, 2)).astype("float32")
    got = _run(lambda d, i, u: R.scatter_elements(d, i, u, axis=2, reduction="add"),
               data, ind, upd)
    np.testing.assert_allclose(got, _scatter_elements_ref(data, ind, upd, 2, "add"), rtol=1e-5)


def test_scatter_elements_kernel_is_one_block_of_flat_loops():
    i64 = [tvm.tir.IntImm("int64", n) for n in (4, 2)]
    data = tvm.te.placeholder((i64[0], i64[0]), name="data")
    ind = tvm.te.placeholder((i64[1], i64[1]), "int64", name="ind")
    upd = tvm.te.placeholder((i64[1], i64[1]), name="upd")
    func = tvm.te.create_prim_func([data, ind, upd,
                                    topi.scatter_elements(data, ind, upd, axis=1)])
    text = func.script()
    assert 'T.attr(0, "pragma_scope", "seq")' in text
    assert "for i in T.parallel(T.int64(16)):" in text
    assert "for fused in T.parallel(T.int64(2)):" in text
    # the stored position: the row's start plus the index, shifted when negative
    assert ('scatter_elements_generic[(fused * T.int64(4) + (ind[(fused * T.int64(2) + k) // '
            'T.int64(2), (fused * T.int64(2) + k) % T.int64(2)] + T.Cast("int64", ind[(fused * '
            'T.int64(2) + k) // T.int64(2), (fused * T.int64(2) + k) % T.int64(2)] < T.int64(0)'
            ') * T.int64(4))) // T.int64(4)') in text
