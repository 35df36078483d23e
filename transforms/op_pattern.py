"""The op pattern of a prim_func (TVM's OpPatternKind), as AnnotateTIROpPattern records it.

Each block's one store is compared with its loads: the same indices are elementwise, indices
found in the store's in order (unit dims aside) broadcast, only store variables injective. A
block with an elementwise load and otherwise broadcast loads counts as elementwise (`C[i, j] =
A[i, j] + B[j]`). A block whose loads fit none of these reduces: a multiply-accumulate is
out-elementwise-fusable (matmul, conv), a reduction over plain reduce variables is a
reduction, any other (pooling) out-elementwise-fusable. A function's pattern is the strongest
of its blocks', except that an injective output block after a reduction makes it
out-elementwise-fusable (softmax). Indices compare by identity, as TVM's `same_as`.
"""

from __future__ import annotations

from typing import Any

from ..ir.ops.base import (BROADCAST, ELEMWISE, INJECTIVE, OPAQUE, OUT_EWISE_FUSABLE,
                           REDUCE)
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import Visitor
from ..tir.stmt import Block, BufferStore, IterType


def _same(xs: Any, ys: Any) -> bool:
    return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))


def _is_const(e: Any, value: int) -> bool:
    return isinstance(e, tx.IntImm) and e.value == value


def _elementwise(store: BufferStore, load: tx.BufferLoad) -> bool:
    """The same indices; a unit dim read at 0 where the store's dim is a unit dim too counts
    as the same (our legalization writes `a[0, i]` where topi writes `a[v0, i]`)."""
    if len(store.indices) != len(load.indices):
        return False
    for i, (s, idx) in enumerate(zip(store.indices, load.indices)):
        if s is idx:
            continue
        if not (_is_const(idx, 0) and _is_const(load.buffer.shape[i], 1)
                and _is_const(store.buffer.shape[i], 1)):
            return False
    return True


def _broadcast(store: BufferStore, load: tx.BufferLoad) -> bool:
    j, n = 0, len(store.indices)
    for dim, idx in zip(load.buffer.shape, load.indices):
        if _is_const(dim, 1) and _is_const(idx, 0):
            continue  # a unit dim read at 0
        while j < n and store.indices[j] is not idx:
            j += 1
        if j == n:
            return False
    return True


def _vars_of(e: Any) -> list[tx.Var]:
    found: list[tx.Var] = []

    class _V(Visitor):
        def visit_Var(self, v: tx.Var) -> None:  # noqa: N802
            found.append(v)

    _V().visit(e)
    return found


def _injective(store: BufferStore, load: tx.BufferLoad) -> bool:
    if not all(isinstance(i, tx.Var) for i in store.indices):
        return False
    allowed = {id(i) for i in store.indices}
    return all(id(v) in allowed for idx in load.indices for v in _vars_of(idx))


def _reuses(store: BufferStore, load: tx.BufferLoad) -> bool:
    """Some store variable is not read by the load's indices (data reuse, as in matmul)."""
    if not all(isinstance(i, tx.Var) for i in store.indices):
        return False
    left = {id(i) for i in store.indices}
    for idx in load.indices:
        left -= {id(v) for v in _vars_of(idx)}
    return bool(left)


def _uncast(e: Any) -> Any:
    while isinstance(e, tx.Cast):
        e = e.value
    return e


def _is_fma(body: Any) -> bool:
    if not isinstance(body, BufferStore):
        return False
    add = _uncast(body.value)
    if not (isinstance(add, tx.BinOp) and add.op is tx.BinaryOp.ADD):
        return False
    mul, acc = _uncast(add.b), _uncast(add.a)
    if not (isinstance(mul, tx.BinOp) and mul.op is tx.BinaryOp.MUL):
        return False
    if not (isinstance(acc, tx.BufferLoad) and acc.buffer is body.buffer
            and _same(acc.indices, body.indices)):
        return False
    lhs, rhs = _uncast(mul.a), _uncast(mul.b)
    return isinstance(lhs, tx.BufferLoad) and isinstance(rhs, tx.BufferLoad) and \
        _reuses(body, lhs) and _reuses(body, rhs)


def _pure_reduce(reduce_vars: list[tx.Var], indices: Any) -> bool:
    for e in indices:
        used = [v for v in _vars_of(e) if any(v is r for r in reduce_vars)]
        if used and e is not used[0]:
            return False
    return True


class _Analyzer(Visitor):
    def __init__(self, func: PrimFunc) -> None:
        self.params = {id(b) for _, b in func.buffer_map}
        self.kind = ELEMWISE
        self.store: BufferStore | None = None
        self.loads: list[tx.BufferLoad] = []

    def visit_BufferStore(self, s: BufferStore) -> None:  # noqa: N802
        if self.store is not None and not _same(s.indices, self.store.indices):
            self.kind = OPAQUE
            return
        self.store = s
        self.generic_visit(s)

    def visit_BufferLoad(self, e: tx.BufferLoad) -> None:  # noqa: N802
        self.loads.append(e)
        self.generic_visit(e)

    def visit_Block(self, b: Block) -> None:  # noqa: N802
        if b.name == "root":
            self.visit(b.body)
            return
        self.loads, self.store = [], None
        self.visit(b.body)
        if self.store is None:
            self.kind = OPAQUE
            return
        pattern = self.index_pattern(self.store)
        if pattern != OPAQUE:
            # NOTE: blocks made by te carry no write regions; the store says where it goes
            output = id(self.store.buffer) in self.params or \
                any(id(w.buffer) in self.params for w in b.writes)
            self.kind = OUT_EWISE_FUSABLE if output and self.kind == REDUCE \
                else max(self.kind, pattern)
            return
        self.kind = self.reduce_pattern(b)

    def index_pattern(self, store: BufferStore) -> int:
        pattern, elemwise = ELEMWISE, False
        for load in self.loads:
            if _elementwise(store, load):
                elemwise = True
            elif _broadcast(store, load):
                pattern = max(pattern, BROADCAST)
            elif _injective(store, load):
                pattern = max(pattern, INJECTIVE)
            else:
                return OPAQUE
        return ELEMWISE if pattern == BROADCAST and elemwise else pattern

    def reduce_pattern(self, b: Block) -> int:
        reduce_vars = [iv.var for iv in b.iter_vars if iv.iter_type is IterType.REDUCE]
        if not reduce_vars:
            return OPAQUE
        if _is_fma(b.body) or not all(_pure_reduce(reduce_vars, ld.indices)
                                      for ld in self.loads):
            return max(self.kind, OUT_EWISE_FUSABLE)
        return max(self.kind, REDUCE)


def func_pattern(f: PrimFunc) -> int:
    """The op pattern of `f` (an int of TVM's OpPatternKind)."""
    analyzer = _Analyzer(f)
    analyzer.visit(f.body)
    return analyzer.kind


__all__ = ["func_pattern"]
