"""The mutator that applies operator-specific normalization (FNormalize, see
`ir/op_normalize.py`) to every call of a function, as TVM's C++ ExprMutator re-emits them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.op_normalize import normalize_op_call
from .pass_infra import Pass, PassContext


class NormalizingMutator(ExprMutator):
    """Rebuilds a function as TVM's C++ ExprMutator does: every operator call re-emitted
    through its FNormalize, bindings known to the rules."""

    def __init__(self) -> None:
        self.bindings: dict[rx.Var, rx.Expr] = {}
        self.pending: list[rx.VarBinding] = []  # bound before the binding being visited
        self.dataflow = False

    def lookup_binding(self, var: rx.Var) -> Any:
        return self.bindings.get(var)

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        saved, self.dataflow = self.dataflow, isinstance(block, rx.DataflowBlock)
        out: list[Any] = []
        for b in block.bindings:
            self.pending = []
            new = self.visit_binding(b)
            out += self.pending + [new]
        self.dataflow = saved
        if len(out) == len(block.bindings) and all(a is b for a, b in zip(out, block.bindings)):
            return block
        return replace(block, bindings=tuple(out))

    def visit_binding(self, binding: Any) -> Any:
        new = super().visit_binding(binding)
        if isinstance(new, rx.VarBinding):
            self.bindings[new.var] = new.value
        return new

    def visit_Call(self, call: rx.Call) -> rx.Expr:  # noqa: N802
        visited = self.generic_visit(call)
        new = normalize_op_call(visited, self)
        if new is visited:
            return new
        # what the rule wrote in line is normalized as TVM's builder does: a tuple argument's
        # fields that are not leaves (`t[0]`) are bound to variables first
        args = tuple(self._leaf_fields(a) if isinstance(a, rx.Tuple) else a for a in new.args)
        return new if all(a is b for a, b in zip(args, new.args)) else replace(new, args=args)

    def _leaf_fields(self, tup: rx.Tuple) -> rx.Tuple:
        fields = tuple(self._bound(f) for f in tup.fields)
        return tup if all(a is b for a, b in zip(fields, tup.fields)) else replace(
            tup, fields=fields)

    def _bound(self, e: rx.Expr) -> rx.Expr:
        if not isinstance(e, (rx.TupleGetItem, rx.Call)):
            return e
        var = (rx.DataflowVar if self.dataflow else rx.Var)("lv", e.struct_info)
        self.pending.append(rx.VarBinding(var, e))
        self.bindings[var] = e
        return var


def NormalizeOpCalls() -> Pass:  # noqa: N802
    """Every relax function re-emitted with operator-specific normalization applied
    (`relax.testing.transform.ApplyEmptyCppMutator`)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: NormalizingMutator().visit(f)
                                 if isinstance(f, rx.Function) else f)
    return Pass(run, "ApplyEmptyCppMutator")
