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


def test_function_method_binds_shapes_and_constant_attributes():
    @R.function(private=True)
    def before(x: R.Tensor(("m", "n"), "float32")):
        n = T.int64()
        y = R.strided_slice(x, [1], [0], [n // 4])
        z = R.call_dps_packed("f", [y], out_ty=R.Tensor([2 * n * 3], "float32"))
        return z

    @R.function(private=True)
    def expected(x: R.Tensor(("m", 32), "float32")):
        y = R.strided_slice(x, [1], [0], [8])
        z = R.call_dps_packed("f", [y], out_ty=R.Tensor([192], "float32"))
        return z

    assert_structural_equal(before.bind_symbolic_vars({"n": 32}), expected)


def test_function_method_refuses_what_it_cannot_bind():
    @R.function(private=True)
    def func(x: R.Tensor(("m", "n"), "float32")):
        return x

    m = func.params[0].struct_info.shape[0]
    with pytest.raises(RuntimeError, match="no symbolic variable named 'k'"):
        func.bind_symbolic_vars({"k": 4})
    with pytest.raises(RuntimeError, match="not a symbolic variable of the function"):
        func.bind_symbolic_vars({tvm.tir.Var("m", "int64"): 4})
    with pytest.raises(RuntimeError, match="given twice"):
        func.bind_symbolic_vars({m: 4, "m": 4})
    with pytest.raises(RuntimeError, match="outside would be used but not defined"):
        func.bind_symbolic_vars({"m": tvm.tir.Var("outside", "int64") * 2})
