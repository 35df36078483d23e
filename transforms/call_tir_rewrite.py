"""CallTIRRewrite: destination-passing calls made explicit, as TVM lowers them for the VM.

`y = R.call_tir(f, (x,), out_ty)` becomes `alloc = R.builtin.alloc_tensor(shape, dtype, 0)`,
`_ = f(x, alloc)` and `y = alloc`; a tuple of outputs gets one allocation per tensor (nested
tuples flattened for the call and rebuilt for the result); `call_tir_inplace` writes into
the arguments it names instead of allocating; `call_dps_packed` calls its extern function the
same way. The VM runs the rewritten form as it runs the original.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir.expr import (
    Call, DataflowBlock, DataflowVar, Expr, Function, GlobalVarRef, ShapeExpr, Tuple, Var,
    VarBinding,
)
from ..ir.module import IRModule
from ..ir.op import CALL_DPS_PACKED, CALL_TIR, CALL_TIR_INPLACE, Op
from ..ir.ops.memory import builtin_alloc_tensor
from ..ir.struct_info import FuncStructInfo, TensorStructInfo, TupleStructInfo
from .pass_infra import Pass, PassContext

_CALL_TIR_WITH_GRAD = Op("relax.call_tir_with_grad")


def CallTIRRewrite() -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(
            lambda gv, f: _rewrite_function(f) if isinstance(f, Function) else f)
    return Pass(run, "CallTIRRewrite")


def _rewrite_function(func: Function) -> Function:
    blocks = tuple(_rewrite_block(b) for b in func.body.blocks)
    if all(a is b for a, b in zip(blocks, func.body.blocks)):
        return func
    return replace(func, body=replace(func.body, blocks=blocks))


def _rewrite_block(block: Any) -> Any:
    var_class = DataflowVar if isinstance(block, DataflowBlock) else Var
    out: list[Any] = []
    changed = False
    for b in block.bindings:
        if isinstance(b, VarBinding) and isinstance(b.value, Call) and b.value.op in (
                CALL_TIR, CALL_TIR_INPLACE, CALL_DPS_PACKED, _CALL_TIR_WITH_GRAD):
            out.extend(_explicit(b, var_class))
            changed = True
        else:
            out.append(b)
    return replace(block, bindings=tuple(out)) if changed else block


def _explicit(b: VarBinding, var_class: type) -> list[Any]:
    call = b.value
    callee, args = call.args[0], _fields(call.args[1])
    out_sinfo = call.sinfo_args[0]
    flat = _flatten(out_sinfo)
    inplace = _inplace_indices(call, len(flat))
    bindings: list[Any] = []
    outs: list[Expr] = []
    fresh: list[Expr] = []  # NOTE: the kernel takes the outputs it does not write in place
    for sinfo, index in zip(flat, inplace):
        if index >= 0:
            outs.append(args[index])
            continue
        alloc = var_class("alloc", sinfo)
        bindings.append(VarBinding(alloc, builtin_alloc_tensor(
            ShapeExpr(tuple(sinfo.shape)), sinfo.dtype, 0)))
        outs.append(alloc)
        fresh.append(alloc)
    extra = [call.args[2]] if call.op == CALL_TIR and len(call.args) > 2 else []
    if isinstance(callee, GlobalVarRef):  # called for its effect, as the parser types it
        callee = replace(callee, struct_info=FuncStructInfo(None, TupleStructInfo(()),
                                                            purity=False))
    kernel_call = Call(callee, tuple(args) + tuple(fresh) + tuple(extra),
                       struct_info=TupleStructInfo(()))
    bindings.append(VarBinding(var_class("_", TupleStructInfo(())), kernel_call))
    result, _ = _rebuild(out_sinfo, outs, 0)
    bindings.append(replace(b, value=result))
    return bindings


def _fields(e: Expr) -> list[Expr]:
    return list(e.fields) if isinstance(e, Tuple) else [e]


def _flatten(sinfo: Any) -> list[TensorStructInfo]:
    if isinstance(sinfo, TupleStructInfo):
        return [t for field in sinfo.fields for t in _flatten(field)]
    if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
        raise ValueError(f"CallTIRRewrite: an output must be a tensor of known shape "
                         f"(or a tuple of them), got {sinfo}")
    return [sinfo]


def _rebuild(sinfo: Any, outs: list[Expr], start: int) -> tuple[Expr, int]:
    """The outputs in the shape of the declared struct info (tuples rebuilt)."""
    if not isinstance(sinfo, TupleStructInfo):
        return outs[start], start + 1
    fields = []
    for field in sinfo.fields:
        value, start = _rebuild(field, outs, start)
        fields.append(value)
    return Tuple(tuple(fields), struct_info=sinfo), start


def _inplace_indices(call: Call, n: int) -> list[int]:
    if call.op != CALL_TIR_INPLACE:
        return [-1] * n
    return [int(i) for i in dict(call.attrs)["inplace_indices"]]
