"""Block signatures kept true when a primitive rewrites a block's body: the `T.reads` and
`T.writes` regions. An empty list means "inferred" in tvmlite (see ir/structural.py), so only
declared lists are rewritten; a declared list is rebuilt the way TVM's inliners rebuild it:
the inlined buffer's region is replaced, in place, by what computing it reads."""

from __future__ import annotations

import dataclasses

from ..arith import bound
from ..expr import BufferLoad, Call, IntImm, PrimExpr, Var
from ..functor import Visitor, simplify, substitute
from ..stmt import Block, Buffer, BufferRegion, BufferStore, Range

_ACCESS_PTR = "tir.tvm_access_ptr"


def point(buf: Buffer, indices: tuple[PrimExpr, ...]) -> BufferRegion:
    """The one-element region `buf[indices]`."""
    return BufferRegion(buf, tuple(Range(i, IntImm(_int_dtype(i), 1)) for i in indices))


def _int_dtype(e: PrimExpr) -> str:
    return e.dtype if e.dtype.startswith(("int", "uint")) else "int32"


class _Loads(Visitor):
    """Point regions of the loads below a node, in visiting order, nested blocks excluded."""

    def __init__(self, skip: Buffer | None) -> None:
        self.found: list[BufferRegion] = []
        self.skip = skip

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        if e.buffer is not self.skip:
            self.found.append(point(e.buffer, e.indices))
        self.generic_visit(e)

    def visit_BlockRealize(self, s: object) -> None:
        pass


def loaded_regions(node: object, skip: Buffer | None = None) -> list[BufferRegion]:
    finder = _Loads(skip)
    finder.visit(node)
    return unique(finder.found)


def unique(regions: list[BufferRegion]) -> list[BufferRegion]:
    """`regions` without repeats (same buffer, structurally equal ranges)."""
    out: list[BufferRegion] = []
    for r in regions:
        if not any(o.buffer is r.buffer and o.region == r.region for o in out):
            out.append(r)
    return out


def block_reads(block: Block) -> list[BufferRegion]:
    """The declared reads, else those of the body's loads."""
    return list(block.reads) if block.reads else loaded_regions(block.body)


def substituted(region: BufferRegion, params: list[Var], at: BufferRegion
                ) -> BufferRegion:
    """`region`, written over `params`, when `params` sweep the region `at` (TVM relaxes an
    inlined producer's reads over the consumer's region of its buffer this way)."""
    if all(isinstance(r.extent, IntImm) and r.extent.value == 1 for r in at.region):
        vmap = {p: r.min for p, r in zip(params, at.region)}
        return BufferRegion(region.buffer, tuple(
            Range(simplify(substitute(r.min, vmap)), r.extent) for r in region.region))
    ranges = {p: (r.min, r.extent.value) for p, r in zip(params, at.region)
              if isinstance(r.extent, IntImm)}
    dims = []
    for r, dim in zip(region.region, region.buffer.shape):
        window = bound(r.min, ranges) if isinstance(r.extent, IntImm) else None
        if window is None or len(ranges) != len(params):
            dims.append(Range(IntImm(_int_dtype(dim), 0), dim))
        else:
            lo, ext = window
            dims.append(Range(lo, IntImm(_int_dtype(lo), ext + r.extent.value - 1)))
    return BufferRegion(region.buffer, tuple(dims))


def replace_read(block: Block, buf: Buffer, params: list[Var],
                 producer_reads: list[BufferRegion]) -> Block:
    """`block` whose declared reads of `buf` become the regions `producer_reads` (over
    `params`, the producer's store indices) cover there."""
    if not any(r.buffer is buf for r in block.reads):
        return block
    out: list[BufferRegion] = []
    for r in block.reads:
        if r.buffer is not buf:
            out.append(r)
            continue
        out += [substituted(p, params, r) for p in producer_reads]
    return dataclasses.replace(block, reads=tuple(unique(out)))


def opaque_users(node: object, buf: Buffer) -> bool:
    """Does anything below `node` use `buf` other than by loads and stores at indices (its
    data pointer, `access_ptr`, a match_buffer of it)?"""
    finder = _Opaque(buf)
    finder.visit(node)
    return finder.hit


class _Opaque(Visitor):
    def __init__(self, buf: Buffer) -> None:
        self.buf, self.hit = buf, False

    def visit_Var(self, v: Var) -> None:
        if v is self.buf.data:
            self.hit = True

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.visit(e.indices)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.visit(s.value)
        self.visit(s.indices)

    def visit_Call(self, e: Call) -> None:
        if e.op == _ACCESS_PTR and len(e.args) > 1 and e.args[1] is self.buf.data:
            self.hit = True
        self.generic_visit(e)

    def visit_Block(self, b: Block) -> None:
        if any(m.source.buffer is self.buf for m in b.match_buffers):
            self.hit = True
        self.generic_visit(b)
