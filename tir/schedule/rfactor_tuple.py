"""`rfactor` of a reduction into several buffers at once (argmax, argmin), as TVM writes it:

    with T.init(): v0[i] = -1; v1[i] = T.min_value("float32")
    a: T.let = T.Select(v1[i] >= val[i, k], v0[i], idx[i, k])
    b: T.let = T.Select(v1[i] >= val[i, k], v1[i], val[i, k])
    v0[i] = a; v1[i] = b

Each store keeps its accumulator on one side of a Select and takes the incoming value (here
`idx[i, k]`, `val[i, k]`) on the other. The rfactor block runs the same body on one rf buffer
per accumulator (lets renamed `<name>_rf`); the write-back block runs it with each incoming
value replaced by a load of its rf buffer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BufferLoad, PrimExpr, Select, Var
from ..functor import Mutator, substitute
from ..stmt import Block, Buffer, BufferStore, LetStmt, SeqStmt, Stmt
from .state import ScheduleError


@dataclasses.dataclass(frozen=True)
class TupleReduction:
    stores: list[BufferStore]  # the closing stores, one per accumulator
    inputs: list[PrimExpr]  # the incoming value each accumulator takes
    lets: list[Var]
    body: Stmt  # the block's body and init, stores in the order of the lets
    init: Stmt


def _same(a: Any, b: Any) -> bool:
    from ...ir.structural import structural_equal  # a lazy import: ir sits above tir

    return structural_equal(a, b)


def parse(block: Block) -> TupleReduction | None:
    """The tuple reduction `block` is, or None when its body is not of that form. As in TVM,
    each accumulator is stored from its own let, and the stores and the init are put in the
    order of the lets."""
    body, chain, lets = block.body, [], {}
    while isinstance(body, LetStmt):
        chain.append(body)
        lets[body.var] = substitute(body.value, lets)
        body = body.body
    init = block.init
    if not (isinstance(body, SeqStmt) and isinstance(init, SeqStmt)
            and all(isinstance(s, BufferStore) for s in body.seq + init.seq)):
        return None
    stores: list[BufferStore] = list(body.seq)  # type: ignore[arg-type]
    if len(stores) < 2:
        return None
    name = block.name
    order = [s.value for s in stores]
    if len(chain) != len(stores) or any(not isinstance(v, Var) or v not in lets for v in order) \
            or len({id(v) for v in order}) != len(order):
        raise ScheduleError(f"rfactor: block {name!r} must store each accumulator from a let "
                            f"of its own (one let per buffer)")
    stores.sort(key=lambda st: [c.var for c in chain].index(st.value))
    by_buf = {id(s.buffer): s for s in init.seq}
    if len(by_buf) != len(init.seq) or set(by_buf) != {id(s.buffer) for s in stores}:
        raise ScheduleError(f"rfactor: the init of block {name!r} must set each accumulator "
                            f"once")
    if any(not _same(s.buffer.shape, stores[0].buffer.shape) for s in stores):
        raise ScheduleError(f"rfactor: the accumulators of block {name!r} differ in shape")
    inputs = []
    for st in stores:
        value, acc = lets[st.value], BufferLoad(st.buffer, st.indices)
        if isinstance(value, Select) and _same(value.true_value, acc):
            inputs.append(value.false_value)
        elif isinstance(value, Select) and _same(value.false_value, acc):
            inputs.append(value.true_value)
        else:
            return None
    if not all(_same(s.indices, stores[0].indices) for s in stores):
        raise ScheduleError(f"rfactor: block {name!r} updates its accumulators at "
                            f"different indices")
    canon: Stmt = SeqStmt(tuple(stores))
    for let in reversed(chain):
        canon = dataclasses.replace(let, body=canon)
    init_canon = SeqStmt(tuple(by_buf[id(s.buffer)] for s in stores))
    return TupleReduction(stores, inputs, [c.var for c in chain], canon, init_canon)


class _Retarget(Mutator):
    """Accumulator accesses go to their rf buffers, the rf axis inserted into the indices."""

    def __init__(self, rf: dict[Buffer, Buffer], axis: int, rf_var: Var) -> None:
        self.rf, self.axis, self.rf_var = rf, axis, rf_var

    def _idx(self, indices: tuple[PrimExpr, ...]) -> tuple[PrimExpr, ...]:
        idx = [self.visit(i) for i in indices]
        idx.insert(self.axis, self.rf_var)
        return tuple(idx)

    def visit_BufferLoad(self, e: BufferLoad) -> Any:
        if e.buffer in self.rf:
            return BufferLoad(self.rf[e.buffer], self._idx(e.indices))
        return self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> Any:
        if s.buffer in self.rf:
            return BufferStore(self.rf[s.buffer], self.visit(s.value), self._idx(s.indices))
        return self.generic_visit(s)


class _ReplaceInputs(Mutator):
    def __init__(self, pairs: list[tuple[PrimExpr, PrimExpr]]) -> None:
        self.pairs = pairs

    def visit(self, node: Any) -> Any:
        if isinstance(node, PrimExpr):
            for old, new in self.pairs:
                if _same(node, old):
                    return new
        return super().visit(node)


def rf_block_parts(block: Block, red: TupleReduction, vmap: dict, rf: dict, axis: int,
                   rf_var: Var) -> tuple[Stmt, Stmt]:
    """(body, init) of the rfactor block: the same reduction on the rf buffers."""
    renamed = {v: Var(f"{v.name}_rf", v.dtype) for v in red.lets}
    retarget = _Retarget(rf, axis, rf_var)
    body = retarget.visit(substitute(red.body, {**vmap, **renamed}))
    init = retarget.visit(substitute(red.init, vmap))
    return body, init


def writeback_parts(block: Block, red: TupleReduction, vmap: dict, rf: dict, axis: int,
                    rf_var: Var) -> tuple[Stmt, Stmt]:
    """(body, init) of the write-back block: each incoming value read from its rf buffer."""
    pairs = []
    for st, x in zip(red.stores, red.inputs):
        idx = list(st.indices)
        idx.insert(axis, rf_var)
        pairs.append((x, BufferLoad(rf[st.buffer], tuple(idx))))
    body = substitute(_ReplaceInputs(pairs).visit(red.body), vmap)
    return body, substitute(red.init, vmap)
