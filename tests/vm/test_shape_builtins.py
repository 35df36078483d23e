"""The shape builtins of TVM's lowered form (`vm.builtin.match_shape`, `make_shape`, ...) in a
module lowered by hand, built through `relax.vm_build._vmcodegen` / `_vmlink`."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.testing.runtime_builtin import MakeShapeCode as MK
from tvmlite.relax.testing.runtime_builtin import MatchShapeCode as MS
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class HandLowered:
    @R.function(pure=False)
    def main(x: R.Tensor(["n", "m"], "float32")) -> R.Shape(ndim=3):
        heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", [R.prim_value(2)],
                                       ty_args=[R.Tensor(ndim=1, dtype="int64")])
        _ = R.call_packed("vm.builtin.check_tensor_info", x, 2, R.dtype("float32"), "x",
                          ty_args=[R.Tuple()])
        _ = R.call_packed("vm.builtin.match_shape", x, heap, 2, MS.STORE_TO_HEAP, 0,
                          MS.ASSERT_EQUAL_TO_IMM, 3, "x", ty_args=[R.Tuple()])
        s = R.call_packed("vm.builtin.make_shape", heap, 3, MK.LOAD_SHAPE, 0, MK.USE_IMM, 7,
                          MK.LOAD_SHAPE, 0, ty_args=[R.Shape(ndim=3)])
        return s


def build(mod):
    builder = relax.ExecBuilder()
    tir_mod = relax.vm_build._vmcodegen(builder, mod)
    return relax.VirtualMachine(relax.vm_build._vmlink(builder, "llvm", tir_mod), tvm.cpu())


def test_dims_are_stored_checked_and_rebuilt():
    vm = build(HandLowered)
    assert tuple(vm["main"](tvm.nd.array(np.zeros((5, 3), "float32")))) == (5, 7, 5)


def test_a_dim_that_differs_from_its_constant_is_an_error():
    vm = build(HandLowered)
    with pytest.raises(ValueError, match="in x : dim 1 must be 3, got 4"):
        vm["main"](tvm.nd.array(np.zeros((5, 4), "float32")))


def test_the_builtins_check_what_they_are_given():
    match_shape = tvm.get_global_func("vm.builtin.match_shape")
    heap = tvm.get_global_func("vm.builtin.alloc_shape_heap")(1)
    with pytest.raises(RuntimeError, match="in y : expected 2 dims"):
        match_shape(tvm.nd.array(np.zeros(3, "float32")), heap, 2, MS.NO_OP, 0, MS.NO_OP, 0,
                    "y")
    check = tvm.get_global_func("vm.builtin.check_tensor_info")
    with pytest.raises(TypeError, match="parameter 'z': expected a tensor"):
        check((1, 2), 2, "float32", "z")
    check(tvm.nd.array(np.zeros(2, "int32")), 1, "")  # TVM's form without a dtype
    with pytest.raises(ValueError, match="expected dtype float32, got int32"):
        check(tvm.nd.array(np.zeros(2, "int32")), 1, "float32", "")
