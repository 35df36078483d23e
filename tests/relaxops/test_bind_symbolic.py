"""BindSymbolicVars: Before/Expected, and the bound function runs."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.transforms.bind_symbolic import BindSymbolicVars


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("m",), "float32")):
        n, m = T.int64(), T.int64()
        with R.dataflow():
            a = R.add(x, y)
            b = R.reshape(a, R.shape([n * m]))
            R.output(b)
        return b


def test_bind_by_name():
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4, "m"), "float32"), y: R.Tensor(("m",), "float32")):
            m = T.int64()
            with R.dataflow():
                a = R.add(x, y)
                b = R.reshape(a, R.shape([m * 4]))
                R.output(b)
            return b

    assert_structural_equal(BindSymbolicVars({"n": 4})(Before), Expected)


def test_bind_all_then_run():
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")):
            with R.dataflow():
                a = R.add(x, y)
                b = R.reshape(a, R.shape([6]))
                R.output(b)
            return b

    after = BindSymbolicVars({"n": 2, "m": 3})(Before)
    assert_structural_equal(after, Expected)
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    x, y = np.ones((2, 3), "float32"), np.arange(3, dtype="float32")
    np.testing.assert_array_equal(vm["main"](x, y).numpy(), (x + y).reshape(6))


def test_bind_by_tir_var_and_errors():
    n = Before["main"].params[0].struct_info.shape[0]
    after = BindSymbolicVars({n: 5})(Before)
    assert after["main"].params[0].struct_info.shape[0].value == 5
    with pytest.raises(ValueError, match=r"no symbolic variable named \['k'\]"):
        BindSymbolicVars({"k": 1})(Before)
    with pytest.raises(ValueError, match="no relax function 'nope'"):
        BindSymbolicVars({"n": 1}, func_name="nope")(Before)
