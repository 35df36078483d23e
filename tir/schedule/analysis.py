"""What schedule primitives ask of the IR: a block's accesses, the regions blocks touch under a
loop, where blocks sit. Regions come from `tir.arith.bound`; what it cannot bound is the whole
dim, which is always safe for a producer (it computes more than needed)."""

from __future__ import annotations

from typing import Any

from ..arith import bound, union_windows
from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import PrimFunc
from ..functor import Visitor, simplify, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For
from . import tree
from .state import ScheduleError

Access = tuple[Buffer, tuple[PrimExpr, ...]]


class _Accesses(Visitor):
    def __init__(self, deep: bool = False) -> None:
        self.reads: list[Access] = []
        self.writes: list[Access] = []
        self.deep = deep
        self.local: list[Buffer] = []  # allocated or matched by a nested block

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.reads.append((e.buffer, e.indices))
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.writes.append((s.buffer, s.indices))
        self.generic_visit(s)

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        # a nested block's accesses are its own, unless its parent's are inferred (deep)
        if self.deep:
            self.local += s.block.alloc_buffers
            self.visit(s.iter_values)
            self.visit(s.predicate)
            self.visit(s.block.body)
            if s.block.init is not None:
                self.visit(s.block.init)
            for m in s.block.match_buffers:
                self.local.append(m.buffer)
                self.visit(m.source.region)
                kind = self.writes if _matched_write(s.block, m) else self.reads
                kind.append((m.source.buffer, tuple(r.min for r in m.source.region)))


def accesses(block: Block) -> tuple[list[Access], list[Access]]:
    """(reads, writes) of a block's body and init; nested blocks not included."""
    acc = _Accesses()
    acc.visit(block.body)
    if block.init is not None:
        acc.visit(block.init)
    return acc.reads, acc.writes


def _matched_write(block: Block, m: Any) -> bool:
    """Does the block write through the matched buffer (declared, or stored to)?"""
    return any(w.buffer is m.source.buffer for w in block.writes) or any(
        b is m.buffer for b, _ in accesses(block)[1])


def deep_accesses(block: Block) -> tuple[list[Access], list[Access]]:
    """(reads, writes) of a block with its nested blocks', what TVM infers for a block
    without `T.reads`/`T.writes`: buffers the nested blocks allocate are left out."""
    acc = _Accesses(deep=True)
    acc.visit(block.body)
    if block.init is not None:
        acc.visit(block.init)
    local = acc.local + list(block.alloc_buffers)
    keep = [(b, i) for b, i in acc.reads if not any(b is x for x in local)]
    return keep, [(b, i) for b, i in acc.writes if not any(b is x for x in local)]


def read_buffers(block: Block) -> list[Buffer]:
    """What `read_buffer_index` counts, as in TVM: the declared `T.reads`, else the loaded
    buffers in order of first load -- without the buffer a reduction block (one with an init)
    accumulates into, which TVM leaves out of its reads."""
    if block.reads:
        return _unique([r.buffer for r in block.reads])
    reads, writes = deep_accesses(block)
    found = _unique(_sources(block, [b for b, _ in reads]))
    if block.init is not None:
        written = _sources(block, [w for w, _ in writes])
        found = [b for b in found if not any(b is w for w in written)]
    return found


def written_buffers(block: Block) -> list[Buffer]:
    if block.writes:
        return _unique([r.buffer for r in block.writes])
    return _unique(_sources(block, [b for b, _ in deep_accesses(block)[1]]))


def _sources(block: Block, bufs: list[Buffer]) -> list[Buffer]:
    """A buffer matched to a region of another (`T.match_buffer(B[vi, vj])`) stands for it."""
    matched = {id(m.buffer): m.source.buffer for m in block.match_buffers}
    return [matched.get(id(b), b) for b in bufs]


def _unique(bufs: list[Buffer]) -> list[Buffer]:
    out: list[Buffer] = []
    for b in bufs:
        if not any(b is u for u in out):
            out.append(b)
    return out


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


def region_under(paths: list[tree.Path], loop: For, buf: Buffer, reads: bool,
                 relaxed: dict[Var, tuple[PrimExpr, int]] | None = None
                 ) -> list[tuple[PrimExpr, PrimExpr]]:
    """The region of `buf` the blocks at `paths` read (or write) during one iteration of
    `loop` (and over all values of the `relaxed` outer loops), per dim as (min, extent); dims
    that cannot be bounded span the whole buffer."""
    per_dim: list[list[tuple[PrimExpr, int] | None]] = [[] for _ in buf.shape]
    for path in paths:
        br: BlockRealize = path[-1]  # type: ignore[assignment]
        ranges = {**(relaxed or {}), **inner_ranges(path, loop)}
        binds = bindings(br)
        acc = accesses(br.block)[0 if reads else 1]
        for b, idx in acc:
            if b is not buf:
                continue
            for d, i in enumerate(idx):
                per_dim[d].append(bound(simplify(substitute(i, binds)), ranges))
    return [_union(windows, dim) for windows, dim in zip(per_dim, buf.shape)]


def thread_ranges(path: tree.Path, buf: Buffer) -> dict[Var, tuple[PrimExpr, int]]:
    """The threadIdx-bound loops on `path` when `buf` is shared memory: every thread of a
    block sees the whole buffer, so a stage placed under such a loop must cover all of them
    (TVM relaxes these loops for shared buffers the same way)."""
    if not buf.scope.startswith("shared"):
        return {}
    return {s.loop_var: (s.min, s.extent.value) for s in path
            if isinstance(s, For) and (s.thread_tag or "").startswith("threadIdx")
            and isinstance(s.extent, IntImm)}


def _union(windows: list[tuple[PrimExpr, int] | None], dim: PrimExpr
           ) -> tuple[PrimExpr, PrimExpr]:
    joined = union_windows(windows)
    if joined is None:
        return IntImm(dim.dtype, 0), dim
    lo, ext = joined
    return lo, IntImm(lo.dtype if lo.dtype.startswith("int") else "int32", ext)


def check_not_output(func: PrimFunc, buf: Buffer, what: str, block: str) -> None:
    if any(b is buf for _, b in func.buffer_map):
        raise ScheduleError(f"{what}: block {block!r} writes {buf.name!r}, a parameter of the "
                            f"function; only blocks writing intermediate buffers can be inlined")
