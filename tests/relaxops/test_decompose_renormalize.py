"""A rewritten binding's users are inferred again (TVM's mutator normalizes them): after
DecomposeOpsForInference gives `tensor_to_shape` symbolic dims, a reshape to that shape gets
them too, LegalizeOps can lower it, and the function still returns `ndim=2` (dims defined
inside its body mean nothing outside)."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class DataDependentReshape:
    @R.function
    def main(x: R.Tensor([2], dtype="int64"), y: R.Tensor([16], dtype="float32")):
        lv: R.Shape(ndim=2) = R.tensor_to_shape(x)
        gv = R.reshape(y, lv)
        return gv


def _bindings(func):
    return [b for blk in func.body.blocks for b in blk.bindings]


def test_reshape_takes_the_decomposed_shape_dims():
    mod = relax.transform.DecomposeOpsForInference()(DataDependentReshape)
    shape_var, reshape = _bindings(mod["main"])[-2:]
    dims = shape_var.var.struct_info.values
    assert reshape.var.struct_info == relax.TensorStructInfo(dims, "float32")
    assert mod["main"].ret_struct_info == relax.TensorStructInfo(None, "float32", 2)


def test_data_dependent_reshape_legalizes_and_runs():
    mod = relax.transform.DecomposeOpsForInference()(DataDependentReshape)
    legal = relax.transform.LegalizeOps()(mod)
    call = _bindings(legal["main"])[-1].value
    assert call.op.name == "relax.call_tir" and "reshape" in legal
    assert legal["main"].ret_struct_info == relax.TensorStructInfo(None, "float32", 2)
    vm = relax.VirtualMachine(relax.build(legal, target="llvm"), tvm.cpu())
    y = np.arange(16, dtype="float32")
    out = vm["main"](tvm.nd.array(np.array([4, 4], "int64")), tvm.nd.array(y)).numpy()
    np.testing.assert_array_equal(out, y.reshape(4, 4))
