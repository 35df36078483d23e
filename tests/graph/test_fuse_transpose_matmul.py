"""FuseTransposeMatmul: a linear layer's `matmul(x, permute_dims(w))` becomes one dense kernel
reading w in place; the transpose disappears unless something else uses it."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R

RNG = np.random.default_rng(3)


@I.ir_module
class Linear:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((8, 16), "float32"),
             b: R.Tensor((8,), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.add(R.matmul(x, wt), b)
            R.output(y)
        return y


@I.ir_module
class TransposeAlsoReturned:
    @R.function
    def main(x: R.Tensor((2, 16), "float32"), w: R.Tensor((8, 16), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w, axes=[1, 0])
            y = R.matmul(x, wt)
            R.output(y, wt)
        return (y, wt)


@I.ir_module
class Batched:
    @R.function
    def main(x: R.Tensor((3, 2, 16), "float32"), w: R.Tensor((3, 8, 16), "float32")):
        with R.dataflow():
            y = R.matmul(x, R.permute_dims(w, axes=[0, 2, 1]))
            R.output(y)
        return y


def ops_of(mod) -> str:
    """The printed module's graph function (where the calls are)."""
    text = mod.script()
    return text[text.index("@R.function"):]


def test_linear_becomes_one_dense_kernel() -> None:
    mod = relax.transform.FuseTransposeMatmul()(Linear)
    text = ops_of(mod)
    assert "R.permute_dims" not in text and "R.matmul" not in text
    assert "R.call_tir(cls.dense, (x, w)" in text
    x, w = RNG.random((5, 16), "float32"), RNG.random((8, 16), "float32")
    b = RNG.random(8, "float32")
    for m in (Linear, mod):
        vm = relax.VirtualMachine(relax.build(m, "llvm"), tvm.cpu())
        np.testing.assert_allclose(vm["main"](x, w, b).numpy(), x @ w.T + b, rtol=1e-5)


def test_a_transpose_used_elsewhere_stays() -> None:
    mod = relax.transform.FuseTransposeMatmul()(TransposeAlsoReturned)
    text = ops_of(mod)
    assert "R.permute_dims" in text and "cls.dense" in text
    x, w = RNG.random((2, 16), "float32"), RNG.random((8, 16), "float32")
    y, wt = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](x, w)
    np.testing.assert_allclose(y.numpy(), x @ w.T, rtol=1e-5)
    np.testing.assert_array_equal(wt.numpy(), w.T)


def test_batched_matmul_is_left_to_legalization() -> None:
    mod = relax.transform.FuseTransposeMatmul()(Batched)
    assert ops_of(mod) == ops_of(Batched)
