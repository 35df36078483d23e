"""Checkpointing for the Gradient pass: which forward values the backward pass may reuse, and
the recomputation of the others.

`R.grad.start_checkpoint(x)` / `R.grad.end_checkpoint(y)` bracket a stage whose intermediate
values are not kept: the backward pass computes them again from the stage's inputs. A value
is checkpointed (kept) when it is a parameter, the input of a start_checkpoint, or computed
only from checkpointed values and outputs of end_checkpoint. Without markers everything is
checkpointed and nothing is recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..ir import expr as rx
from ..ir.functor import ExprMutator, substitute_vars
from .gradient_emit import Emitter

START, END = "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"


@dataclass
class Checkpoints:
    kept: set[rx.Var] = field(default_factory=set)
    # the variable a marker call defined -> the variable it marked
    marked: dict[rx.Var, rx.Var] = field(default_factory=dict)


def _marker(value: rx.Expr) -> str | None:
    if isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and \
            value.op.name in (START, END):
        return value.op.name
    return None


def _vars_in(expr: rx.Expr) -> list[rx.Var]:
    found: list[rx.Var] = []

    class _Collect(ExprMutator):
        def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
            found.append(v)
            return v

        visit_DataflowVar = visit_Var

    _Collect().visit(expr)
    return found


def strip_markers(block: rx.DataflowBlock, params: tuple[rx.Var, ...], ret: rx.Expr
                  ) -> tuple[list[rx.Binding], rx.Expr, Checkpoints]:
    """The block's bindings without the checkpoint markers (their uses see the marked
    variable), the return value likewise, and what is checkpointed."""
    cps = Checkpoints(kept=set(params))
    ends: set[rx.Var] = set()
    remap: dict[rx.Var, rx.Expr] = {}
    out: list[rx.Binding] = []
    for b in block.bindings:
        kind = _marker(b.value)
        if kind is None:
            if all(v in cps.kept or v in ends for v in _vars_in(b.value)):
                cps.kept.add(b.var)
            out.append(replace(b, value=substitute_vars(b.value, remap)) if remap else b)
            continue
        arg = b.value.args[0]
        if not isinstance(arg, rx.Var):
            raise RuntimeError(f"Gradient: {kind} must mark a variable, got {arg}")
        marked = remap.get(arg, arg)
        assert isinstance(marked, rx.Var)
        if not isinstance(b.var, rx.DataflowVar) and isinstance(arg, rx.DataflowVar):
            # an output of the block stays one: bind it to the marked value
            exposed = rx.Var(marked.name_hint, marked.struct_info)
            out.append(rx.VarBinding(exposed, marked))
            remap[b.var] = exposed
        else:
            remap[b.var] = marked
        cps.marked[b.var] = marked
        if kind == START:
            cps.kept.add(marked)
        else:
            ends.add(b.var)
    return out, substitute_vars(ret, remap) if remap else ret, cps


class Recompute:
    """Gives the backward pass each forward value: itself when checkpointed, else bindings
    (named `<var>_cp`) that compute it again from checkpointed values."""

    def __init__(self, em: Emitter, params: tuple[rx.Var, ...], bindings: list[rx.Binding],
                 kept: set[rx.Var]) -> None:
        self._em = em
        self._values = {b.var: b.value for b in bindings}
        self._known: dict[rx.Var, rx.Var] = {p: p for p in params}
        self._known.update({b.var: b.var for b in bindings if b.var in kept})

    def binding(self, var: rx.Var, value: rx.Expr) -> tuple[rx.Var, rx.Expr]:
        new_value = self._rebuild(value)
        if var not in self._known:
            self._known[var] = self._em.emit(new_value, var.name_hint + "_cp")
        return self._known[var], new_value

    def _var(self, v: rx.Var) -> rx.Var:
        if v not in self._known:
            self._known[v] = self._em.emit(self._rebuild(self._values[v]), v.name_hint + "_cp")
        return self._known[v]

    def _rebuild(self, value: rx.Expr) -> rx.Expr:
        recompute = self

        class _Uses(ExprMutator):
            def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
                return recompute._var(v)

            visit_DataflowVar = visit_Var

        return _Uses().visit(value)
