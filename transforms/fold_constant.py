"""FoldConstant: compute at compile time what depends on constants alone (TVM's pass).

A `call_tir` whose inputs are all constants runs once (its prim_func compiled) and its result
becomes a Constant; so does an operator call inside a dataflow block whose arguments are all
constants and which legalizes to one `call_tir` (an operator that creates a tensor from nothing,
such as `R.zeros`, only when the result has at most 1024 elements: big constants cost more to
carry than to compute). Variables bound to constants are replaced by them and unused bindings
dropped. The module's prim_funcs stay, as in TVM.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_TIR
from .pass_infra import Pass, PassContext

_MAX_CREATED_ELEMENTS = 1024


def _static_tensors(sinfo: Any) -> list[si.TensorStructInfo] | None:
    fields = sinfo.fields if isinstance(sinfo, si.TupleStructInfo) else (sinfo,)
    if all(isinstance(f, si.TensorStructInfo) and f.static_shape is not None and f.dtype
           for f in fields):
        return list(fields)
    return None


def _constant_inputs(call: rx.Call) -> list[rx.Constant] | None:
    if len(call.args) != 2 or not isinstance(call.args[1], rx.Tuple):
        return None  # a call_tir with symbolic-dim arguments is left alone
    inputs = call.args[1].fields
    return list(inputs) if all(isinstance(a, rx.Constant) for a in inputs) else None


class _Folder(ExprMutator):
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.consts: dict[rx.Var, rx.Expr] = {}
        self.in_dataflow = False
        self.kernels: dict[str, Any] = {}

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.consts.get(v, v)

    visit_DataflowVar = visit_Var

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        saved, self.in_dataflow = self.in_dataflow, isinstance(block, rx.DataflowBlock)
        try:
            return super().visit_block(block)
        finally:
            self.in_dataflow = saved

    def visit_binding(self, b: Any) -> Any:
        b = super().visit_binding(b)
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Constant):
            self.consts[b.var] = b.value
        return b

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        call = self.generic_visit(call)
        if call.op == CALL_TIR:
            return self.fold_call_tir(call, self.mod.functions)
        if isinstance(call.op, rx.Op) and self.in_dataflow:
            return self.fold_op(call)
        return call

    def fold_op(self, call: rx.Call) -> rx.Expr:
        from .legalize import LEGALIZE, TEEmitter, _Legalizer

        if call.op.name not in LEGALIZE or not all(_is_constant(a) for a in call.args):
            return call
        outs = _static_tensors(call.struct_info)
        if outs is None:
            return call
        tensor_args = any(isinstance(a, (rx.Constant, rx.Tuple)) for a in call.args)
        if not tensor_args and sum(int(np.prod(o.static_shape)) for o in outs) > \
                _MAX_CREATED_ELEMENTS:
            return call
        scratch: dict[GlobalVar, Any] = {}
        lowered = _Legalizer(TEEmitter(scratch), LEGALIZE).visit_Call(call)
        if lowered.op != CALL_TIR or len(scratch) != 1:
            return call  # legalized to several calls, or not at all: TVM leaves it too
        return self.fold_call_tir(lowered, scratch, fallback=call)

    def fold_call_tir(self, call: rx.Call, funcs: dict[GlobalVar, Any],
                      fallback: rx.Expr | None = None) -> rx.Expr:
        inputs = _constant_inputs(call)
        outs = _static_tensors(call.sinfo_args[0]) if call.sinfo_args else None
        if inputs is None or outs is None:
            return fallback or call
        results = self.run(call.args[0].gvar, funcs, inputs, outs)  # type: ignore[attr-defined]
        if isinstance(call.sinfo_args[0], si.TupleStructInfo):
            return rx.Tuple(tuple(results), call.sinfo_args[0])
        return results[0]

    def run(self, gvar: GlobalVar, funcs: dict[GlobalVar, Any], inputs: list[rx.Constant],
            outs: list[si.TensorStructInfo]) -> list[rx.Constant]:
        from ..vm.ndarray import array
        from .build import build_kernels

        func = funcs[gvar]
        key = id(func)
        if key not in self.kernels:
            self.kernels[key] = build_kernels(func)
        results = [array(np.empty(o.static_shape, o.dtype)) for o in outs]
        self.kernels[key](*[a.data for a in inputs], *results)
        return [rx.Constant(r, o) for r, o in zip(results, outs)]


def _is_constant(e: Any) -> bool:
    if isinstance(e, rx.Tuple):
        return all(_is_constant(f) for f in e.fields)
    return isinstance(e, (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm)) and \
        not (isinstance(e, rx.ShapeExpr) and any(not hasattr(v, "value") for v in e.values))


def FoldConstant() -> Pass:  # noqa: N802
    """Evaluate calls whose inputs are all constants; bind their results as Constants."""
    from .simple_passes import remove_unused

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        folder = _Folder(mod)

        def fold(gv: GlobalVar, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            folder.consts = {}
            new = folder.visit(f)
            return f if new is f else remove_unused(new)

        return mod.map_functions(fold)
    return Pass(run, "FoldConstant")


__all__ = ["FoldConstant"]
