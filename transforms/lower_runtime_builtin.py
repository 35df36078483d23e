"""LowerRuntimeBuiltin (TVM's pass), for the operators that are runtime functions.

`R.memory.view(x, shape, dtype, offset)` becomes a call of the extern function
`runtime.TVMTensorCreateView` with every field spelled out (the source's shape and dtype
where the view keeps them, byte offset 0 when none is given); its struct info says
`derive_func="tvm.relax.type.infer_view_ty"`, the rule that gives the view's struct info.
Operators this pass does not know are left as they are (tvmlite's VM lowers them itself).
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.analysis import get_var2val
from ..ir.ops.memory_view import absent as field_absent
from ..tir import expr as tx
from .pass_infra import Pass
from .simple_passes import _function_pass

CREATE_VIEW = "runtime.TVMTensorCreateView"
_VIEW_SINFO = si.FuncStructInfo(None, si.ObjectStructInfo(), True,
                                "tvm.relax.type.infer_view_ty")


class _Lower(ExprMutator):
    def __init__(self, var2val: dict[rx.Var, rx.Expr]) -> None:
        self.var2val = var2val

    def visit_Call(self, call: rx.Call) -> rx.Expr:  # noqa: N802
        call = self.generic_visit(call)
        if isinstance(call.op, rx.Op) and call.op.name == "relax.memory.view":
            return _view_call(call, self.var2val)
        return call


def _view_call(call: rx.Call, var2val: dict[rx.Var, rx.Expr]) -> rx.Expr:
    data, shape, dtype, offset = call.args
    src = data.struct_info

    def absent(e: rx.Expr) -> bool:  # an absent field may have been bound to a variable
        return field_absent(var2val.get(e, e) if isinstance(e, rx.Var) else e)

    if absent(shape):
        if not isinstance(src, si.TensorStructInfo) or src.shape is None:
            return call  # nothing to spell the shape with: the VM's view keeps it
        shape = rx.ShapeExpr(src.shape, si.ShapeStructInfo(src.shape))
    if absent(dtype):
        if not isinstance(src, si.TensorStructInfo) or not src.dtype:
            return call
        dtype = rx.DataTypeImm(src.dtype)
    if absent(offset):
        zero = tx.const(0, "int64")
        offset = rx.PrimValue(zero, si.PrimStructInfo("int64", zero))
    return replace(call, op=rx.ExternFunc(CREATE_VIEW, _VIEW_SINFO),
                   args=(data, shape, dtype, offset), attrs=(), sinfo_args=())


def lower_runtime_builtin(func: rx.Function) -> rx.Function:
    return _Lower(get_var2val(func)).visit(func)


def LowerRuntimeBuiltin() -> Pass:  # noqa: N802
    """Operators that are runtime functions become calls of them (see the module docstring)."""
    return _function_pass("LowerRuntimeBuiltin", lower_runtime_builtin)
