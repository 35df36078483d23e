"""The mutator that applies operator-specific normalization (FNormalize, see
`ir/op_normalize.py`) to every call of a function, as TVM's C++ ExprMutator re-emits them."""

from __future__ import annotations

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

    def lookup_binding(self, var: rx.Var) -> Any:
        return self.bindings.get(var)

    def visit_binding(self, binding: Any) -> Any:
        new = super().visit_binding(binding)
        if isinstance(new, rx.VarBinding):
            self.bindings[new.var] = new.value
        return new

    def visit_Call(self, call: rx.Call) -> rx.Expr:  # noqa: N802
        return normalize_op_call(self.generic_visit(call), self)


def NormalizeOpCalls() -> Pass:  # noqa: N802
    """Every relax function re-emitted with operator-specific normalization applied
    (`relax.testing.transform.ApplyEmptyCppMutator`)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: NormalizingMutator().visit(f)
                                 if isinstance(f, rx.Function) else f)
    return Pass(run, "ApplyEmptyCppMutator")
