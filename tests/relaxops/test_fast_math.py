"""FastMathTransform (transforms/fast_math.py): exp, tanh and erf become approximating kernels;
their values against numpy / math.erf over the whole float32 range that matters."""

import math

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((256,), "float32"), y: R.Tensor((4,), "float64")):
        with R.dataflow():
            a = R.exp(x)
            b = R.tanh(x)
            c = R.erf(x)
            d = R.exp(y)  # float64: left to the exact kernel
            R.output(a, b, c, d)
        return (a, b, c, d)


def test_fast_math_kernels_replace_the_calls_and_stay_accurate():
    after = relax.transform.FastMathTransform()(Mod)
    assert sorted(after.names()) == ["fast_erf", "fast_exp", "fast_tanh", "main"]
    ops = [b.value.op.name for b in after["main"].body.blocks[0].bindings]
    assert ops == ["relax.call_tir"] * 3 + ["relax.exp"]
    x = np.linspace(-12, 12, 256).astype("float32")
    y = np.linspace(-1, 1, 4)
    ex = relax.build(after, target="llvm")
    a, b, c, d = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(y))
    np.testing.assert_allclose(a.numpy(), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), np.tanh(x), atol=1e-6)
    np.testing.assert_allclose(c.numpy(), [math.erf(v) for v in x], atol=1e-6)
    np.testing.assert_allclose(d.numpy(), np.exp(y), rtol=1e-12)
