"""RewriteDataflowReshape (TVM's pass): a `call_tir` of a prim_func that only reshapes
(`relax.analysis.has_reshape_pattern`) becomes `R.reshape`, which the VM can run as a view.

Only dataflow variables are rewritten: a dataflow block's outputs keep their kernel, as in TVM.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import IRModule
from ..ir.op import CALL_TIR, op_attr
from ..ir.reshape_pattern import has_reshape_pattern
from ..tir.function import PrimFunc
from .pass_infra import Pass, PassContext


def _as_reshape(call: rx.Call, mod: IRModule, b: Any) -> rx.Expr | None:
    if call.op != CALL_TIR or len(call.args) != 2 or not isinstance(call.args[1], rx.Tuple):
        return None
    inputs = call.args[1].fields
    out = call.sinfo_args[0] if call.sinfo_args else None
    func = mod.functions.get(call.args[0].gvar) if isinstance(call.args[0],
                                                              rx.GlobalVarRef) else None
    if len(inputs) != 1 or not isinstance(out, si.TensorStructInfo) or out.shape is None or \
            not isinstance(func, PrimFunc) or not has_reshape_pattern(func):
        return None
    src = inputs[0].struct_info
    if not isinstance(src, si.TensorStructInfo) or src.dtype != out.dtype:
        return None
    shape = rx.ShapeExpr(out.shape, si.ShapeStructInfo(out.shape))
    new = op_attr("relax.reshape", "make")(inputs[0], shape)
    return replace(new, span=call.span)


def RewriteDataflowReshape() -> Pass:  # noqa: N802
    """Reshape kernels called inside dataflow blocks become `R.reshape` (see the docstring)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            blocks = []
            for blk in f.body.blocks:
                if not isinstance(blk, rx.DataflowBlock):
                    blocks.append(blk)
                    continue
                out = []
                for b in blk.bindings:
                    new = _as_reshape(b.value, mod, b) if isinstance(b.var, rx.DataflowVar) \
                        and isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Call) \
                        else None
                    out.append(b if new is None else replace(b, value=new))
                blocks.append(replace(blk, bindings=tuple(out)))
            return replace(f, body=replace(f.body, blocks=tuple(blocks)))
        return mod.map_functions(one)
    return Pass(run, "RewriteDataflowReshape")
