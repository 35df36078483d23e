"""`te.scan`: tensors defined by a recurrence over their first axis (TVM's ScanOp).

The first `init.shape[0]` rows come from `init`; every later row `t` from `update`, which reads
earlier rows through `state_placeholder`. As in TVM 0.27, the op describes the recurrence only:
`create_prim_func` refuses it (TVM lowers scans through the retired te schedules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..tir.functor import simplify
from ..tir.stmt import IterType, Range, make_buffer
from .tensor import AxisVar, Operation, Tensor, current_tag


@dataclass(eq=False)
class ScanOp(Operation):
    name: str
    tag: str
    attrs: dict[str, Any]
    scan_axis: AxisVar  # the rows `update` computes: [init rows, update rows)
    init: list[Tensor]
    update: list[Tensor]
    state_placeholder: list[Tensor]
    inputs: list[Tensor]
    tensors: list[Tensor] = field(default_factory=list)

    def results(self) -> list[Tensor]:
        return self.tensors

    @property
    def input_tensors(self) -> list[Tensor]:
        return [*self.init, *self.update]


def _listed(x: Any) -> list[Tensor]:
    if x is None:
        return []
    return [x] if isinstance(x, Tensor) else list(x)


def scan(init: Any, update: Any, state_placeholder: Any, inputs: Any = None,
         name: str = "scan", tag: str = "", attrs: dict[str, Any] | None = None) -> Any:
    """`te.scan(init, update, state)`: one output per (init, update, state) triple, shaped as
    its `update`; one triple gives a Tensor, several a list."""
    inits, updates, states = _listed(init), _listed(update), _listed(state_placeholder)
    if not (len(inits) == len(updates) == len(states)) or not inits:
        raise ValueError("te.scan: init, update and state_placeholder must have the same, "
                         "non-zero length")
    for i, u, s in zip(inits, updates, states):
        if not (len(i.shape) == len(u.shape) == len(s.shape)):
            raise ValueError(f"te.scan: init {i.name!r}, update {u.name!r} and state "
                             f"{s.name!r} must have the same rank")
    lo, hi = inits[0].shape[0], updates[0].shape[0]
    axis = AxisVar(f"{name}.idx", lo.dtype, None, Range(lo, simplify(hi - lo)),
                   IterType.OPAQUE)
    op = ScanOp(name, tag or current_tag(), dict(attrs or {}), axis, inits, updates, states,
                _listed(inputs))
    op.tensors = [Tensor(make_buffer(name if len(updates) == 1 else f"{name}_v{k}",
                                     u.shape, u.dtype), op, k)
                  for k, u in enumerate(updates)]
    return op.tensors[0] if len(updates) == 1 else list(op.tensors)
