"""`nn.tensor_ir_op` / `nn.tensor_ir_inplace_op` with symbolic integers among the arguments:
as TVM 0.27, the integers travel in the argument tuple in the prim_func's parameter order, and
the calls run on the VM (checked against numpy)."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn
from tvmlite.script import tir as T


@T.prim_func
def _shift(var_x: T.handle, offset: T.int64, var_y: T.handle):
    n = T.int64()
    x = T.match_buffer(var_x, (n,), "float32")
    y = T.match_buffer(var_y, (n,), "float32")
    for i in range(n):
        y[i] = x[i] + T.Cast("float32", offset)


@T.prim_func
def _shift_in_place(var_x: T.handle, offset: T.int64):
    n = T.int64()
    x = T.match_buffer(var_x, (n,), "float32")
    for i in range(n):
        x[i] = x[i] + T.Cast("float32", offset)


class _Shift(nn.Module):
    def forward(self, x: nn.Tensor, offset: int):
        return nn.op.tensor_ir_op(_shift, "shift", args=[x, offset],
                                  out=nn.Tensor.placeholder(x.shape, x.dtype))


class _ShiftInPlace(nn.Module):
    def forward(self, x: nn.Tensor, offset: int):
        return nn.op.tensor_ir_inplace_op(_shift_in_place, "shift_in_place", args=[x, offset],
                                          inplace_indices=[0],
                                          out=nn.Tensor.placeholder(x.shape, x.dtype))


def _export(model: nn.Module) -> tvm.IRModule:
    spec = {"forward": {"x": nn.spec.Tensor(["n"], "float32"), "offset": int,
                        "$": {"param_mode": "none", "effect_mode": "none"}}}
    mod, _ = model.export_tvm(spec)
    return mod


def test_scalar_arguments_sit_in_the_argument_tuple():
    for model, text in ((_Shift(), "R.call_tir(cls.shift, (x, offset), out_ty="),
                        (_ShiftInPlace(), "R.call_tir_inplace(cls.shift_in_place, "
                                          "(x, offset), out_ty=")):
        script = _export(model).script()
        assert text in script, script
        assert "tir_vars" not in script


def test_scalar_arguments_reach_the_prim_func():
    x = np.arange(5, dtype="float32")
    for model in (_Shift(), _ShiftInPlace()):
        vm = relax.VirtualMachine(relax.build(_export(model), "llvm"), tvm.cpu())
        out = vm["forward"](tvm.nd.array(x.copy()), tvm.runtime.ShapeTuple([3]))
        np.testing.assert_array_equal(out.numpy(), x + 3)
