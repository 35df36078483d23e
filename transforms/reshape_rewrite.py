"""RewriteDataflowReshape (TVM's pass): a `call_tir` of a prim_func that only reshapes
(`relax.analysis.has_reshape_pattern`) becomes `R.reshape`, which the VM can run as a view.

Only dataflow variables are rewritten: a dataflow block's outputs keep their kernel, as in TVM.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.module import IRModule
from ..ir.op import CALL_TIR, op_attr
from ..ir.reshape_pattern import reshape_source
from ..tir.analyzer import Analyzer
from ..tir.expr import IntImm
from ..tir.function import PrimFunc
from .pass_infra import Pass, PassContext


def _as_reshape(call: rx.Call, mod: IRModule, b: Any) -> rx.Expr | None:
    if call.op != CALL_TIR or len(call.args) != 2 or not isinstance(call.args[1], rx.Tuple):
        return None
    inputs = call.args[1].fields
    out = call.sinfo_args[0] if call.sinfo_args else None
    func = mod.functions.get(call.args[0].gvar) if isinstance(call.args[0],
                                                              rx.GlobalVarRef) else None
    if not isinstance(out, si.TensorStructInfo) or out.shape is None or \
            not isinstance(func, PrimFunc):
        return None
    source = reshape_source(func)
    buffers = [func.buffer_of(p) for p in func.params]
    at = next((i for i, b in enumerate(buffers) if b is source), len(inputs))
    if at >= len(inputs):
        return None
    moved = inputs[at]  # a fused kernel may take inputs it never reads
    src = moved.struct_info
    if not isinstance(src, si.TensorStructInfo) or src.dtype != out.dtype or \
            not _same_volume(src.shape, out.shape):
        return None
    shape = rx.ShapeExpr(out.shape, si.ShapeStructInfo(out.shape))
    new = op_attr("relax.reshape", "make")(moved, shape)
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


def _same_volume(src: Any, out: Any) -> bool:
    """Whether a tensor of shape `src` holds as many elements as one of shape `out`: a kernel
    with the reshape pattern may read only part of its input (a strided slice), and
    R.reshape must keep the volume."""
    if src is None or isinstance(src, rx.Expr):
        return False
    one = IntImm("int64", 1)
    n_src = functools.reduce(operator.mul, src, one)
    n_out = functools.reduce(operator.mul, out, one)
    return Analyzer().can_prove_equal(n_src, n_out)


# -- RemoveRedundantReshape ------------------------------------------------------------------


def _is_reshape(e: Any) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.reshape"


def _source(e: rx.Expr, values: dict[rx.Var, rx.Expr]) -> rx.Expr:
    """What `e` reshapes, looking through renamings and earlier reshapes."""
    while isinstance(e, rx.Var):
        v = values.get(e)
        if isinstance(v, rx.Var):
            e = v
        elif _is_reshape(v):
            e = v.args[0]
        else:
            break
    return e


def _same_shape(e: rx.Expr, shape: Any) -> bool:
    from ..ir.structural import structural_equal

    s = e.struct_info
    dims = shape.values if isinstance(shape, rx.ShapeExpr) else None
    return isinstance(s, si.TensorStructInfo) and s.shape is not None and dims is not None \
        and structural_equal(tuple(s.shape), tuple(dims))


def RemoveRedundantReshape() -> Pass:  # noqa: N802
    """A reshape of a reshape reshapes the original once; a reshape to the shape a tensor
    already has is the tensor itself (DeadCodeElimination then drops what is left unused)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            values: dict[rx.Var, rx.Expr] = {}
            same: dict[rx.Var, rx.Expr] = {}  # vars that now just name another value
            blocks = []
            for blk in f.body.blocks:
                out = []
                for b in blk.bindings:
                    v = substitute_vars(b.value, same) if same else b.value
                    if isinstance(b, rx.VarBinding) and _is_reshape(v):
                        src = _source(v.args[0], values)
                        v = src if _same_shape(src, v.args[1]) else (
                            v if src is v.args[0] else replace(v, args=(src, *v.args[1:])))
                        leaks = isinstance(v, rx.DataflowVar) and \
                            not isinstance(b.var, rx.DataflowVar)
                        if isinstance(v, rx.Var) and not leaks:
                            same[b.var] = v
                            continue
                    values[b.var] = v
                    out.append(replace(b, value=v))
                if out:
                    blocks.append(replace(blk, bindings=tuple(out)))
            body = substitute_vars(f.body.body, same) if same else f.body.body
            return replace(f, body=replace(f.body, blocks=tuple(blocks), body=body))
        return mod.map_functions(one)
    return Pass(run, "RemoveRedundantReshape")
