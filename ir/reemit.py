"""A mutator that re-emits what it changes as TVM's ExprMutator does: struct info follows values.

When a pass substitutes something inside a binding's value, TVM's ExprMutator normalizes the
new value (an operator call's struct info is inferred again, a tuple's is its fields') and, if
the value's struct info differs from the variable's, binds a new variable carrying it; later
uses of the old variable are redirected to the new one. Passes that rename or substitute
(BindParams, NormalizeGlobalVar) derive from `ReemitMutator` to get that behaviour.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .expr import Call, Function, Op, Tuple, Var, VarBinding
from .functor import ExprMutator
from .struct_info import TupleStructInfo


class ReemitMutator(ExprMutator):
    """ExprMutator whose changed bindings take their new value's struct info."""

    def __init__(self, remap: dict[Var, Any] | None = None) -> None:
        self.remap: dict[Var, Any] = dict(remap or {})

    def visit_Var(self, v: Var) -> Any:
        return self.remap.get(v, v)

    visit_DataflowVar = visit_Var

    def visit_Call(self, call: Call) -> Any:
        from .op import with_inferred_struct_info  # the op registry imports the IR

        new = self.generic_visit(call)
        return with_inferred_struct_info(new) if new is not call and isinstance(new.op, Op) \
            else new

    def visit_Tuple(self, t: Tuple) -> Any:
        new = self.generic_visit(t)
        if new is t:
            return t
        return replace(new, struct_info=TupleStructInfo(tuple(f.struct_info
                                                              for f in new.fields)))

    def visit_binding(self, binding: Any) -> Any:
        from .structural import structural_equal

        new = super().visit_binding(binding)
        sinfo = getattr(new.value, "struct_info", None)
        if new is binding or not isinstance(new, VarBinding) or sinfo is None or \
                structural_equal(sinfo, new.var.struct_info):
            return new
        var = replace(new.var, struct_info=sinfo)
        self.remap[binding.var] = var
        return replace(new, var=var)

    def visit_Function(self, func: Function) -> Any:
        """A function whose body changed returns what the body now returns, where that is
        more precise than what it declared or no longer covered by it (TVM re-derives it on
        re-emission)."""
        from .expr import refine_return
        from .type_analysis import is_base_of

        new = self.generic_visit(func)
        if new is func:
            return new
        body, ret = new.body.body.struct_info, new.ret_struct_info
        if body is not None and ret is not None and not is_base_of(ret, body):
            return replace(new, ret_struct_info=body)
        refined = refine_return(new.params, ret, new.body)
        return new if refined is ret else replace(new, ret_struct_info=refined)
