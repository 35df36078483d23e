"""A relax function on fresh variables (TVM's FunctionCopier): passes that add a function
derived from another (Gradient, AppendLoss) must not share variables between the two."""

from __future__ import annotations

from ..ir import expr as rx
from ..ir.functor import ExprMutator


class FunctionCopier(ExprMutator):
    """The function on fresh variables, and the map from old variables to new ones."""

    def __init__(self) -> None:
        self.vars: dict[rx.Var, rx.Var] = {}

    def fresh(self, v: rx.Var) -> rx.Var:
        self.vars[v] = type(v)(v.name_hint, v.struct_info)
        return self.vars[v]

    def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
        return self.vars.get(v, v)

    visit_DataflowVar = visit_Var

    def visit_binding(self, b: rx.Binding) -> rx.Binding:
        value = self.visit(b.value)
        return type(b)(self.fresh(b.var), value, *([b.struct_info] if isinstance(
            b, rx.MatchCast) else []))

    def copy(self, func: rx.Function) -> rx.Function:
        params = tuple(self.fresh(p) for p in func.params)
        return rx.Function(params, self.visit(func.body), func.ret_struct_info, func.is_pure,
                           func.attrs)

    def visit_Function(self, f: rx.Function) -> rx.Function:  # noqa: N802
        return self.copy(f)  # a nested function gets fresh parameters too


def copy_with_new_vars(func: rx.Function) -> rx.Function:
    """`relax.utils.copy_with_new_vars`: `func` with fresh variables and symbolic dims, so the
    copy and the original can live in one module."""
    from .bind_symbolic import renew_symbolic_vars

    return FunctionCopier().copy(renew_symbolic_vars(func))
