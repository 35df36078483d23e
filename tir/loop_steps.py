"""`unit_steps`: loops with a step (TVM 0.27's `T.serial(lo, hi, step=s)`) rewritten to count
0, 1, ... over their trip count, the loop variable replaced by `lo + k * s` in the body, so the
passes and codegen after it only meet unit-step loops."""

from __future__ import annotations

from typing import Any

from .expr import IntImm, Var, const
from .functor import Mutator, any_node, substitute
from .stmt import For


def _stepped(node: Any) -> bool:
    return type(node) is For and node.step is not None


class _UnitSteps(Mutator):
    def visit_For(self, s: For) -> For:
        s = self.generic_visit(s)
        if s.step is None:
            return s
        dtype = s.extent.dtype
        step = const(s.step, dtype)
        # NOTE: a loop runs while lo + k * step < lo + extent: ceil(extent / step) turns
        # (extent > 0 and a positive step, as TVM requires of a loop step)
        if isinstance(s.extent, IntImm) and isinstance(step, IntImm):
            trips: Any = IntImm(dtype, max(0, -(-s.extent.value // step.value)))
        else:
            trips = (s.extent + step - 1) // step
        k = Var(s.loop_var.name, s.loop_var.dtype)
        body = substitute(s.body, {s.loop_var: s.min + k * step})
        return For(k, IntImm(dtype, 0), trips, s.kind, body, s.thread_tag, s.annotations,
                   s.span)


def unit_steps(func: Any) -> Any:
    """The function (or statement) with every stepped loop rewritten; the same object when
    it has none."""
    if not any_node(func.body if hasattr(func, "with_body") else func, _stepped):
        return func
    if hasattr(func, "with_body"):
        return func.with_body(_UnitSteps().visit(func.body))
    return _UnitSteps().visit(func)
