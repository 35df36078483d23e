"""What schedule primitives ask of the IR: a block's accesses, the regions blocks touch under a
loop, where blocks sit. Regions come from `tir.arith.bound`; what it cannot bound is the whole
dim, which is always safe for a producer (it computes more than needed)."""

from __future__ import annotations

from typing import Any

from ..arith import bound
from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import PrimFunc
from ..functor import Visitor, simplify, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For
from . import tree
from .state import ScheduleError

Access = tuple[Buffer, tuple[PrimExpr, ...]]


class _Accesses(Visitor):
    def __init__(self) -> None:
        self.reads: list[Access] = []
        self.writes: list[Access] = []

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.reads.append((e.buffer, e.indices))
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.writes.append((s.buffer, s.indices))
        self.generic_visit(s)

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        pass  # a nested block's accesses are its own


def accesses(block: Block) -> tuple[list[Access], list[Access]]:
    """(reads, writes) of a block's body and init; nested blocks not included."""
    acc = _Accesses()
    acc.visit(block.body)
    if block.init is not None:
        acc.visit(block.init)
    return acc.reads, acc.writes


def written_buffer(br: BlockRealize, what: str) -> tuple[Buffer, tuple[PrimExpr, ...]]:
    writes = {id(b): (b, idx) for b, idx in accesses(br.block)[1]}
    if len(writes) != 1:
        raise ScheduleError(f"{what}: block {br.block.name!r} writes {len(writes)} buffers; "
                            f"it must write exactly one")
    return next(iter(writes.values()))


def bindings(br: BlockRealize) -> dict[Var, PrimExpr]:
    return {iv.var: v for iv, v in zip(br.block.iter_vars, br.iter_values)}


def readers(root: Any, buf: Buffer) -> list[tree.Path]:
    return [p for p in tree.find_all(root, lambda s: isinstance(s, BlockRealize))
            if any(b is buf for b, _ in accesses(p[-1].block)[0])]  # type: ignore[union-attr]


def writers(root: Any, buf: Buffer) -> list[tree.Path]:
    return [p for p in tree.find_all(root, lambda s: isinstance(s, BlockRealize))
            if any(b is buf for b, _ in accesses(p[-1].block)[1])]  # type: ignore[union-attr]


def inner_ranges(path: tree.Path, loop: For) -> dict[Var, tuple[PrimExpr, int]]:
    """Loops strictly between `loop` and the end of `path`, as var -> (min, constant extent);
    a loop without a constant extent is left out (its var then makes the bound fail)."""
    start = next(i for i, s in enumerate(path) if s is loop)
    out = {}
    for s in path[start + 1:]:
        if isinstance(s, For):
            ext = simplify(s.extent)
            if isinstance(ext, IntImm):
                out[s.loop_var] = (s.min, ext.value)
    return out


def region_under(paths: list[tree.Path], loop: For, buf: Buffer, reads: bool
                 ) -> list[tuple[PrimExpr, PrimExpr]]:
    """The region of `buf` the blocks at `paths` read (or write) during one iteration of
    `loop`, per dim as (min, extent); dims that cannot be bounded span the whole buffer."""
    per_dim: list[list[tuple[PrimExpr, int] | None]] = [[] for _ in buf.shape]
    for path in paths:
        br: BlockRealize = path[-1]  # type: ignore[assignment]
        ranges = inner_ranges(path, loop)
        binds = bindings(br)
        acc = accesses(br.block)[0 if reads else 1]
        for b, idx in acc:
            if b is not buf:
                continue
            for d, i in enumerate(idx):
                per_dim[d].append(bound(simplify(substitute(i, binds)), ranges))
    return [_union(windows, dim) for windows, dim in zip(per_dim, buf.shape)]


def _union(windows: list[tuple[PrimExpr, int] | None], dim: PrimExpr
           ) -> tuple[PrimExpr, PrimExpr]:
    whole = (IntImm(dim.dtype, 0), dim)
    if not windows or any(w is None for w in windows):
        return whole
    first = windows[0]
    assert first is not None
    lo, ext = first
    for w in windows[1:]:
        assert w is not None
        if not _same(w[0], lo):
            return whole
        ext = max(ext, w[1])
    return lo, IntImm(lo.dtype if lo.dtype.startswith("int") else "int32", ext)


def _same(a: PrimExpr, b: PrimExpr) -> bool:
    if a == b:  # value equality: the same expression over the same Vars
        return True
    diff = simplify(a - b) if a.dtype == b.dtype else None
    return isinstance(diff, IntImm) and diff.value == 0


def check_not_output(func: PrimFunc, buf: Buffer, what: str, block: str) -> None:
    if any(b is buf for _, b in func.buffer_map):
        raise ScheduleError(f"{what}: block {block!r} writes {buf.name!r}, a parameter of the "
                            f"function; only blocks writing intermediate buffers can be inlined")
