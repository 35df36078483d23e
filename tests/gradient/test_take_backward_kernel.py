"""R.grad.take_backward legalized to TVM's flat-index kernel (topi/grad_take.py): its printed
form, and the gradient it computes against numpy's scatter-add."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def _run(mod, *args):
    ex = relax.build(relax.transform.LegalizeOps()(mod), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*map(tvm.nd.array, args)).numpy()


def _expected(g, x_shape, idx, axis):
    out = np.zeros(x_shape, g.dtype)
    if axis is None:
        np.add.at(out.reshape(-1), idx, g)
    else:
        moved = np.moveaxis(out, axis, 0)
        np.add.at(moved, idx, np.moveaxis(g, axis, 0))
    return out


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_take_backward_along_an_axis_adds_repeated_indices(axis):
    rng = np.random.default_rng(axis)
    gshape = [3, 4, 5]
    gshape[axis] = 4
    g = rng.standard_normal(gshape).astype("float32")
    idx = np.array([1, 0, 1, 2], "int32")
    params = [relax.Var("g", R.Tensor(gshape, "float32")),
              relax.Var("x", R.Tensor((3, 4, 5), "float32")),
              relax.Var("idx", R.Tensor((4,), "int32"))]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        gv = bb.emit(R.grad.take_backward(params[0], params[1], params[2], axis=axis))
        bb.emit_func_output(gv)
    got = _run(bb.get(), g, np.zeros((3, 4, 5), "float32"), idx)
    np.testing.assert_allclose(got, _expected(g, (3, 4, 5), idx, axis), rtol=1e-6)


def test_take_backward_of_flattened_take():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    g = relax.Var("g", R.Tensor((4,), "float32"))
    idx = relax.Var("idx", R.Tensor((4,), "int64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [g, x, idx]):
        gv = bb.emit(R.grad.take_backward(g, x, idx, axis=None))
        bb.emit_func_output(gv)
    gd = np.arange(1, 5, dtype="float32")
    ind = np.array([5, 0, 5, 3], "int64")
    got = _run(bb.get(), gd, np.zeros((2, 3), "float32"), ind)
    np.testing.assert_allclose(got, _expected(gd, (2, 3), ind, None))


def test_take_backward_kernel_is_tvms_flat_index_form():
    @I.ir_module
    class Mod:
        @R.function
        def main(g: R.Tensor(("m", "i"), "float32"), x: R.Tensor(("m", "n"), "float32"),
                 idx: R.Tensor(("i",), "int32")):
            gv = R.grad.take_backward(g, x, idx, axis=1)
            return gv

    @T.prim_func(private=True)
    def expected(var_g: T.handle, var_x: T.handle, var_idx: T.handle, var_out: T.handle):
        T.func_attr({"tir.noalias": True})
        m, i = T.int64(), T.int64()
        g = T.match_buffer(var_g, (m, i))
        n = T.int64()
        x = T.match_buffer(var_x, (m, n))  # noqa: F841 (binds n)
        idx = T.match_buffer(var_idx, (i,), "int32")
        out = T.match_buffer(var_out, (m, n))
        with T.block("take_backward"):
            T.attr(0, "pragma_scope", "seq")
            for k in range(m * n):
                out[k // n, k % n] = T.float32(0)
            for p, s in T.grid(m, i):
                out[(p * n + T.Cast("int64", idx[s])) // n,
                    (p * n + T.Cast("int64", idx[s])) % n] = \
                    out[(p * n + T.Cast("int64", idx[s])) // n,
                        (p * n + T.Cast("int64", idx[s])) % n] + g[(p * i + s) // i,
                                                                   (p * i + s) % i]

    got = relax.transform.LegalizeOps()(Mod)["take_backward"]
    tvm.ir.assert_structural_equal(got, expected)
    m, n, i = 2, 3, 4
    g = np.random.default_rng(0).standard_normal((m, i)).astype("float32")
    ind = np.array([2, 2, 0, 1], "int32")
    got = _run(Mod, g, np.zeros((m, n), "float32"), ind)
    np.testing.assert_allclose(got, _expected(g, (m, n), ind, 1), rtol=1e-6)
