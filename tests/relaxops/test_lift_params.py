"""LiftTransformParams: Before/Expected, and transform-then-run equals the original."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.lift_params import LiftTransformParams


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32"),
             b: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w)
            wt2 = R.multiply(wt, R.const(2.0, "float32"))
            y = R.matmul(x, wt2)
            z = R.add(y, b)
            R.output(z)
        return z


def test_lift_before_expected():
    @I.ir_module
    class Expected:
        @R.function
        def main_transform_params(model_params: R.Tuple(R.Tensor((4, 3), "float32"),
                                                        R.Tensor((4,), "float32"))):
            R.func_attr({"num_input": 0})
            with R.dataflow():
                w = model_params[0]
                b = model_params[1]
                wt = R.permute_dims(w)
                wt2 = R.multiply(wt, R.const(2.0, "float32"))
                output_tuple = (b, wt2)
                R.output(output_tuple)
            return output_tuple

        @R.function
        def main(x: R.Tensor((2, 3), "float32"), b: R.Tensor((4,), "float32"),
                 wt2: R.Tensor((3, 4), "float32")):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                y = R.matmul(x, wt2)
                z = R.add(y, b)
                R.output(z)
            return z

    assert_structural_equal(LiftTransformParams()(Before), Expected)


def test_lifted_program_computes_the_same():
    after = LiftTransformParams()(Before)
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    x = np.random.rand(2, 3).astype("float32")
    w = np.random.rand(4, 3).astype("float32")
    b = np.random.rand(4).astype("float32")
    params = vm["main_transform_params"]((tvm.nd.array(w), tvm.nd.array(b)))
    out = vm["main"](tvm.nd.array(x), *params).numpy()
    np.testing.assert_allclose(out, x @ (2 * w.T) + b, rtol=1e-5)


def test_function_without_num_input_is_left_alone():
    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            y = R.add(x, x)
            return y

    assert_structural_equal(LiftTransformParams()(Plain), Plain)
