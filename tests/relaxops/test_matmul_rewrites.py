"""Matmul rewrites (AdjustMatmulOrder, ...): Before/Expected as TVM writes them, and the
compiled result of the rewritten module against numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R

RNG = np.random.default_rng(7)


def _run(mod, *arrays):
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in arrays])
    return out.numpy()


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def test_adjust_matmul_order_multiplies_the_vector_first():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")) -> R.Tensor((32,), "float32"):
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")) -> R.Tensor((32,), "float32"):
            xa = R.matmul(x, a)
            out = R.matmul(xa, b)
            return out

    after = relax.transform.AdjustMatmulOrder()(Before)
    assert_structural_equal(after, Expected)
    assert_structural_equal(relax.transform.AdjustMatmulOrder()(after), Expected)  # idempotent
    x, a, b = _rand(16), _rand(16, 2), _rand(2, 32)
    np.testing.assert_allclose(_run(after, x, a, b), x @ (a @ b), rtol=1e-4, atol=1e-4)


def test_adjust_matmul_order_keeps_an_order_not_always_cheaper():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("batch", 16), "float32"), a: R.Tensor((16, "r"), "float32"),
                 b: R.Tensor(("r", 32), "float32")):
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    # (x @ a) @ b costs 48 * batch * r, x @ (a @ b) costs 512 * (r + batch): neither always
    assert_structural_equal(relax.transform.AdjustMatmulOrder()(Before), Before)


def test_adjust_matmul_order_keeps_weight_products_it_can_fold():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")):
            R.func_attr({"num_input": 1})
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    assert_structural_equal(relax.transform.AdjustMatmulOrder()(Before), Before)
