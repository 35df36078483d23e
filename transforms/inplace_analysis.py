"""The analyses behind in-place rewriting of a dataflow block, as TVM states them (and exposes
for testing in `relax.testing.transform`).

Liveness: each variable's (first, last) binding index; variables from outside the block start
at -1, and those still needed after the block (its outputs, and outside values) end at its
length. Aliasing: each variable's set of abstract memory locations. The parameters are
locations 0, 1, ...; every other value gets fresh ones in binding order (a tuple one for
itself and, when an operator makes it, one per element, listed in the tuple map); renamings,
tuple reads and views (reshape, expand_dims, ...) share them; a call that is not an operator
(a relax function, a packed function) may return anything it was given, so its value holds
all its arguments' locations and its fresh ones; a value from outside the block is the
unknown location -1.
"""

from __future__ import annotations

from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.op import Op

_OPAQUE_OPS = frozenset({"relax.call_pure_packed", "relax.call_packed",
                         "relax.call_inplace_packed", "relax.invoke_closure"})
# operators whose result may share its first argument's memory (a view of it)
VIEW_OPS = frozenset({"relax.reshape", "relax.expand_dims", "relax.squeeze", "relax.flatten",
                      "relax.permute_dims", "relax.nn.batch_flatten", "relax.memory.view",
                      "relax.memory.ensure_zero_offset"})


def liveness(block: rx.BindingBlock) -> dict[rx.Var, tuple[int, int]]:
    n = len(block.bindings)
    bound = {b.var: i for i, b in enumerate(block.bindings)}
    ranges: dict[rx.Var, list[int]] = {}
    for i, b in enumerate(block.bindings):
        for v in var_use_counts(b.value):
            start = bound.get(v, -1)
            r = ranges.setdefault(v, [start, start])
            r[1] = max(r[1], i)
        ranges.setdefault(b.var, [i, i])
    for v, r in ranges.items():
        if v not in bound or not isinstance(v, rx.DataflowVar):
            r[1] = n  # needed after the block
    return {v: (r[0], r[1]) for v, r in ranges.items()}


class _Aliases:
    def __init__(self, inputs: list[rx.Var]) -> None:
        self.sets: dict[rx.Var, set[int]] = {v: {i} for i, v in enumerate(inputs)}
        self.tuples: dict[int, list[set[int]]] = {}
        self.next = len(inputs)

    def fresh(self) -> int:
        self.next += 1
        return self.next - 1

    def of(self, e: rx.Expr) -> set[int]:
        if isinstance(e, rx.Var):
            return set(self.sets.get(e, {-1}))
        return {self.fresh()}  # a constant or another leaf: a new location

    def closure(self, ids: set[int]) -> set[int]:
        """The locations and, for tuples, those of their elements."""
        out, todo = set(), list(ids)
        while todo:
            i = todo.pop()
            if i in out:
                continue
            out.add(i)
            for element in self.tuples.get(i, []):
                todo.extend(element)
        return out

    def value(self, e: rx.Expr) -> set[int]:
        if isinstance(e, rx.Var):
            return self.of(e)
        if isinstance(e, rx.Tuple):
            fields = [self.of(f) for f in e.fields]
            t = self.fresh()
            self.tuples[t] = fields
            return {t}
        if isinstance(e, rx.TupleGetItem):
            owners = self.of(e.tuple_value) if isinstance(e.tuple_value, rx.Var) else {-1}
            if -1 in owners:
                return {-1}
            out: set[int] = set()
            for t in owners:  # NOTE: of the locations that are tuples, the element's
                if t in self.tuples:
                    out |= self.tuples[t][e.index]
            return out or {-1}
        if isinstance(e, rx.Call) and isinstance(e.op, Op) and e.op.name in VIEW_OPS and \
                isinstance(e.args[0], rx.Var):
            return self.of(e.args[0])
        if isinstance(e, rx.Call):
            opaque = not isinstance(e.op, Op) or e.op.name in _OPAQUE_OPS
            result = self.fresh_result(e.struct_info)
            if not opaque:
                return result
            given: set[int] = set()
            for a in e.args:
                if isinstance(a, rx.Var):
                    given |= self.closure(self.of(a))
                elif isinstance(a, rx.Tuple):
                    for f in a.fields:
                        given |= self.closure(self.of(f)) if isinstance(f, rx.Var) else set()
            everything = given | self.closure(result)
            for t in result:
                if t in self.tuples:
                    self.tuples[t] = [set(everything) for _ in self.tuples[t]]
            return everything
        return {self.fresh()}

    def fresh_result(self, sinfo: Any) -> set[int]:
        t = self.fresh()
        if isinstance(sinfo, si.TupleStructInfo):
            self.tuples[t] = [{self.fresh()} for _ in sinfo.fields]
        return {t}


def aliases(block: rx.BindingBlock, inputs: list[rx.Var]
            ) -> tuple[dict[rx.Var, set[int]], dict[int, list[set[int]]]]:
    state = _Aliases(list(inputs))
    for b in block.bindings:
        state.sets[b.var] = state.value(b.value)
    return state.sets, state.tuples
