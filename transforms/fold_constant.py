"""FoldConstant: compute at compile time what depends on constants alone (TVM's pass).

A `call_tir` whose inputs are all constants runs once (its prim_func compiled) and its result
becomes a Constant; so does an operator call inside a dataflow block whose arguments are all
constants and which legalizes to one `call_tir` (an operator that creates a tensor from nothing,
such as `R.zeros`, only when the result has at most 1024 elements: big constants cost more to
carry than to compute). Variables bound to constants are replaced by them and unused bindings
dropped. The module's prim_funcs stay, as in TVM.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_TIR, get_op, op_attr, with_inferred_struct_info
from ..ir.reemit import ReemitMutator
from .pass_infra import Pass, PassContext

_MAX_CREATED_ELEMENTS = 1024
TENSOR_TO_SHAPE = get_op("relax.tensor_to_shape")
RESHAPE = get_op("relax.reshape")


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


class _Folder(ReemitMutator):
    """Folds as it goes; `remap` sends a variable bound to a constant to the constant (and,
    as TVM re-emits a binding, a variable whose value is now known better to a new one)."""

    def __init__(self, mod: IRModule) -> None:
        super().__init__()
        self.mod = mod
        self.shapes: dict[rx.Var, rx.ShapeExpr] = {}
        self.in_dataflow = False
        self.kernels: dict[str, Any] = {}

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        saved, self.in_dataflow = self.in_dataflow, isinstance(block, rx.DataflowBlock)
        try:
            return super().visit_block(block)
        finally:
            self.in_dataflow = saved

    def visit_binding(self, b: Any) -> Any:
        new = super().visit_binding(b)  # a reshape to a folded shape gets static dims
        if isinstance(new, rx.VarBinding) and isinstance(new.value, rx.Constant):
            self.remap[b.var] = new.value
        if isinstance(new, rx.VarBinding) and isinstance(new.value, rx.ShapeExpr):
            self.shapes[new.var] = new.value
        return new

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        new = self.generic_visit(call)
        if new.op == RESHAPE and isinstance(new.args[1], rx.Var) and new.args[1] in self.shapes:
            # as TVM: a reshape to a variable bound to a shape takes the shape itself
            new = replace(new, args=(new.args[0], self.shapes[new.args[1]], *new.args[2:]))
        if new is not call and isinstance(new.op, rx.Op):
            new = with_inferred_struct_info(new)
        call = new
        if call.op == TENSOR_TO_SHAPE and isinstance(call.args[0], rx.Constant):
            return _shape_of_constant(call.args[0]) or call
        if call.op == CALL_TIR:
            return self.fold_call_tir(call, self.mod.functions)
        if isinstance(call.op, rx.Op) and self.in_dataflow:
            return self.fold_op(call)
        return call

    def fold_op(self, call: rx.Call) -> rx.Expr:
        from .legalize import LEGALIZE, TEEmitter, _Legalizer
        from .legalize.bb_rules import BB_LEGALIZE

        name = call.op.name
        known = name in LEGALIZE or name in BB_LEGALIZE or op_attr(name, "FLegalize") is not None
        if not known or not all(_is_constant(a) for a in call.args):
            return call
        outs = _static_tensors(call.struct_info)
        if outs is None:
            return call
        tensor_args = any(isinstance(a, (rx.Constant, rx.Tuple)) for a in call.args)
        if not tensor_args and sum(int(np.prod(o.static_shape)) for o in outs) > \
                _MAX_CREATED_ELEMENTS:
            return call
        scratch: dict[GlobalVar, Any] = {}
        # a user's legalization (register_legalize) wins over ours, as in LegalizeOps
        lowered = _Legalizer(TEEmitter(scratch), LEGALIZE, BB_LEGALIZE).visit_Call(call)
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


def _shape_of_constant(c: rx.Constant) -> rx.ShapeExpr | None:
    """`R.tensor_to_shape` of a 1-d integer constant, as the shape it holds."""
    data = np.asarray(c.data.numpy() if hasattr(c.data, "numpy") else c.data)
    if data.ndim != 1 or data.dtype.kind not in "iu":
        return None
    return rx.ShapeExpr(tuple(int(v) for v in data))


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
            folder.remap, folder.shapes = {}, {}
            new = folder.visit(f)
            return f if new is f else remove_unused(new)

        return mod.map_functions(fold)
    return Pass(run, "FoldConstant")


__all__ = ["FoldConstant"]
