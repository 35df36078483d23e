"""The window of a buffer one block touches while some loops above it sweep their ranges.

Unlike `iter_domain.block_region`, blocks nested in the block narrow their loops by their
predicates (`T.where(vi < 10)` over `i in range(12)` touches rows 0..9), each under its own:
sibling blocks guarded differently touch the union of their windows, as TVM 0.27 relaxes
them for cache_read / cache_write.
"""

from __future__ import annotations

from ..arith import Window
from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import Visitor, simplify, substitute
from ..stmt import BlockRealize, Buffer, BufferStore, For
from .iter_domain import _union, window

Ranges = dict[Var, tuple[PrimExpr, int]]


def _conjuncts(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.AND:
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _upper(c: PrimExpr) -> tuple[Var, int] | None:
    """`v < k` (or `v <= k`, `k > v`, `k >= v`) as (v, the exclusive bound)."""
    if not isinstance(c, BinOp):
        return None
    a, b, op = c.a, c.b, c.op
    if op in (BinaryOp.GT, BinaryOp.GE):
        a, b, op = b, a, BinaryOp.LT if op is BinaryOp.GT else BinaryOp.LE
    if op not in (BinaryOp.LT, BinaryOp.LE) or not isinstance(a, Var):
        return None
    k = simplify(b)
    if not isinstance(k, IntImm):
        return None
    return a, k.value + (op is BinaryOp.LE)


def narrowed(ranges: Ranges, predicate: PrimExpr) -> Ranges:
    """`ranges` with each loop a `v < k` conjunct of `predicate` bounds cut at k."""
    out = dict(ranges)
    for c in _conjuncts(predicate):
        hit = _upper(c)
        if hit is None or hit[0] not in out:
            continue
        v, k = hit
        lo, n = out[v]
        if isinstance(lo, IntImm) and k - lo.value < n:
            out[v] = (lo, max(k - lo.value, 1))
    return out


class _Touched(Visitor):
    def __init__(self, buf: Buffer, reads: bool, ranges: Ranges, unbounded: set[Var]) -> None:
        self.buf, self.reads = buf, reads
        self.ranges, self.unbounded = ranges, unbounded
        self.vmap: dict[Var, PrimExpr] = {}
        self.found: list[list[Window | None]] = []

    def _dim(self, e: PrimExpr, extra: int = 0) -> Window | None:
        e = simplify(substitute(e, self.vmap))
        if any(v in self.unbounded for v in free_vars(e)):
            return None
        w = window(e, self.ranges) if self.ranges else (e, 1)
        return None if w is None else (w[0], w[1] + extra)

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        if self.reads and e.buffer is self.buf:
            self.found.append([self._dim(i) for i in e.indices])
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        if not self.reads and s.buffer is self.buf:
            self.found.append([self._dim(i) for i in s.indices])
        self.generic_visit(s)

    def visit_For(self, s: For) -> None:
        ext = simplify(substitute(s.extent, self.vmap))
        if isinstance(ext, IntImm):
            self.ranges[s.loop_var] = (substitute(s.min, self.vmap), ext.value)
        else:
            self.unbounded.add(s.loop_var)
        self.visit(s.body)

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        outer_map, outer_ranges = self.vmap, self.ranges
        self.ranges = narrowed(outer_ranges, simplify(substitute(s.predicate, outer_map)))
        self.vmap = {**outer_map, **{iv.var: substitute(v, outer_map)
                                     for iv, v in zip(s.block.iter_vars, s.iter_values)}}
        declared = s.block.reads if self.reads else s.block.writes
        if declared:
            for r in declared:
                if r.buffer is self.buf:
                    self.found.append([self._region_dim(x.min, x.extent) for x in r.region])
        else:
            self.visit(s.block.body)
            if s.block.init is not None:
                self.visit(s.block.init)
        self.vmap, self.ranges = outer_map, outer_ranges

    def _region_dim(self, lo: PrimExpr, ext: PrimExpr) -> Window | None:
        n = simplify(substitute(ext, self.vmap))
        return self._dim(lo, n.value - 1) if isinstance(n, IntImm) else None


def region_windows(br: BlockRealize, loops: list[For], buf: Buffer, reads: bool
                   ) -> list[Window | None]:
    """Per dim of `buf`, the window block `br` reads (or writes) while `loops` (all above it)
    sweep; None where it cannot be bounded."""
    ranges: Ranges = {}
    unbounded: set[Var] = set()
    for lp in loops:
        ext = simplify(lp.extent)
        if isinstance(ext, IntImm):
            ranges[lp.loop_var] = (lp.min, ext.value)
        else:
            unbounded.add(lp.loop_var)
    finder = _Touched(buf, reads, ranges, unbounded)
    finder.visit_BlockRealize(br)
    if not finder.found:
        return [None] * len(buf.shape)
    return [_union([f[d] for f in finder.found], dim) for d, dim in enumerate(buf.shape)]
