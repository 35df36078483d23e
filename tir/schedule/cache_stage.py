"""cache_read and cache_write, placed and sized as TVM 0.27 does.

The stage goes where TVM's cache-location search puts it: for cache_read of a buffer some block
of the scope writes, into the innermost statement list holding that writer and the first
consumer, right before the consumer; for an input buffer, first in the scope; for cache_write,
before the first block still reading the original buffer (last in the scope if none does).
The stage copies the region the writer writes (or, for an input, the consumers read) during
one iteration of the loops above that place. The cache buffer, allocated in the scope block,
holds that region over the whole scope: when it is smaller than the buffer, the cache is
compacted and every access to it shifts by the region's start (`A_local[vi - i * 16]`).
Predicates of blocks nested in the swept blocks narrow their loops (`T.where(vi < 10)`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import _summands, constant_difference, subtract
from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..functor import Mutator, simplify
from ..stmt import (
    Block, BlockRealize, Buffer, BufferRegion, BufferStore, For, ForKind, IterType, IterVar,
    MatchBufferRegion, Range, SeqStmt, Stmt, seq,
)
from . import tree
from .analysis import deep_accesses, read_buffers, written_buffers
from .iter_domain import _union
from .touched import Window, region_windows
from .buffer_prims import _valid_scope
from .state import Ctx, ScheduleError
from .trace import BlockRV


def _reads(block: Block, buf: Buffer) -> bool:
    if block.reads:
        return any(r.buffer is buf for r in block.reads)
    return any(b is buf for b, _ in deep_accesses(block)[0])


def _writes(block: Block, buf: Buffer) -> bool:
    if block.writes:
        return any(r.buffer is buf for r in block.writes)
    return any(b is buf for b, _ in deep_accesses(block)[1])


def child_blocks(s: Stmt) -> list[BlockRealize]:
    """The blocks directly in `s` (not inside another block), in program order."""
    if isinstance(s, BlockRealize):
        return [s]
    return [b for c in tree.children(s) for b in child_blocks(c)]


# -- where the stage goes ----------------------------------------------------------------------


@dataclasses.dataclass
class _Detect:
    """TVM's CacheLocDetector: the statement whose body gets the stage, and the position."""

    scope: Block
    writer: Block | None
    related: set[str]
    seen_writer: bool = False
    seen_related: bool = False
    loc: Stmt | None = None
    pos: int = -1

    def visit(self, s: Stmt) -> None:
        if isinstance(s, SeqStmt):
            before = self.seen_writer
            self.seen_writer = False
            for i, c in enumerate(s.seq):
                if self.pos != -1:
                    break
                self.visit(c)
                if self.seen_writer and self.seen_related and self.pos == -1:
                    self.pos = i
                    break
                if self.seen_related:
                    break
            self.seen_writer = self.seen_writer or before
        elif isinstance(s, BlockRealize):
            self.visit_block(s.block)
        elif isinstance(s, For):
            self.visit(s.body)
            if self.seen_writer and self.seen_related and self.loc is None and self.pos != -1:
                self.loc = s
        else:
            for c in tree.children(s):
                self.visit(c)

    def visit_block(self, b: Block) -> None:
        if b is self.scope:
            self.visit(b.body)
            if self.seen_related and self.loc is None:
                self.loc = b
                if not self.seen_writer and self.pos == -1:
                    self.pos = 0
        elif b is self.writer:
            self.seen_writer = True
        elif b.name in self.related:
            self.seen_related = True


def _location(scope: Block, writer: Block | None, related: set[str]) -> tuple[Stmt, int]:
    if not related:  # nobody reads it after: the end of the scope
        n = len(scope.body.seq) if isinstance(scope.body, SeqStmt) else 1
        return scope, n
    d = _Detect(scope, writer, related)
    d.visit_block(scope)
    if d.loc is None:
        return scope, 0 if writer is None else 1
    return d.loc, max(d.pos, 0)


def _insert(body: Stmt, loc: Stmt, pos: int, stage: Stmt) -> Stmt:
    lpath = tree.find(body, lambda s: s is loc)
    assert lpath is not None
    inner = loc.body  # type: ignore[attr-defined]
    items = list(inner.seq) if isinstance(inner, SeqStmt) else [inner]
    items.insert(min(pos, len(items)), stage)
    return tree.replace(lpath, dataclasses.replace(loc, body=seq(items)))  # type: ignore


# -- the regions -------------------------------------------------------------------------------


def _swept(path: tree.Path, top: Stmt) -> list[For]:
    """The loops of `path` below `top` (the statement the stage goes in)."""
    start = next(i for i, s in enumerate(path) if s is top)
    return [s for s in path[start + 1:] if isinstance(s, For)]


def _window(br: BlockRealize, path: tree.Path, top: Stmt, buf: Buffer, reads: bool
            ) -> list[Window | None]:
    return region_windows(br, _swept(path, top), buf, reads)


def _union_dims(regions: list[list[Window | None]]) -> list[Window | None]:
    return [_union([r[d] for r in regions], IntImm("int32", 0)) for d in range(len(regions[0]))]


def _fit(win: list[Window | None], buf: Buffer) -> list[tuple[PrimExpr, PrimExpr]]:
    """Each dim's window within the buffer; what is unknown or covers it is the whole dim."""
    out = []
    for w, dim in zip(win, buf.shape):
        zero = IntImm(dim.dtype, 0)
        if w is None:
            out.append((zero, dim))
            continue
        lo, n = w
        lo = IntImm(dim.dtype, lo.value) if isinstance(lo, IntImm) else lo
        if isinstance(dim, IntImm) and n >= dim.value:
            out.append((zero, dim))
        elif isinstance(lo, IntImm) and isinstance(dim, IntImm):
            a, b = max(lo.value, 0), min(lo.value + n, dim.value)
            out.append((IntImm(dim.dtype, a), IntImm(dim.dtype, max(b - a, 1))))
        else:
            out.append((lo, IntImm(dim.dtype, n)))
    return out


def _is_zero(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _shift(idx: tuple[PrimExpr, ...], base: list[PrimExpr], sign: int) -> tuple[PrimExpr, ...]:
    """`idx - base` (sign -1, a cache access) or `base + idx` (sign 1, a source access)."""
    out = []
    for i, b in zip(idx, base):
        if _is_zero(b):
            out.append(i)
        elif sign < 0:  # TVM cancels what it can (`v_o * 32 + v_i` less `v_o * 32`)
            cut = subtract(i, b)
            out.append(BinOp(BinaryOp.SUB, i, b) if _is_sub_of(cut, i, b) else cut)
        else:
            out.append(BinOp(BinaryOp.ADD, b, i))
    return tuple(out)


def _is_sub_of(cut: PrimExpr, i: PrimExpr, b: PrimExpr) -> bool:
    """Did `subtract` fall back to a plain difference (nothing of `b` cancelled)?"""
    return not any(t == x for t in _summands(b) for x in _summands(i))


# -- the stage ---------------------------------------------------------------------------------


def _stage(name: str, cache: Buffer, buf: Buffer, at: list[tuple[PrimExpr, PrimExpr]],
           alloc: list[tuple[PrimExpr, PrimExpr]], read: bool) -> Stmt:
    """Copies the region `at` between `buf` and its cache (which holds `alloc`)."""
    ivs, loops, binds = [], [], []
    for d, ((lo, ext), (alo, aext)) in enumerate(zip(at, alloc)):
        dtype = buf.shape[d].dtype
        ax = Var(f"ax{d}", dtype)
        loops.append((ax, IntImm(dtype, 0), ext))
        ivs.append(IterVar(Var(f"v{d}", dtype), Range(IntImm(dtype, 0), aext),
                           IterType.SPATIAL))
        d = constant_difference(lo, alo)
        start = IntImm(dtype, d) if d is not None else simplify(BinOp(BinaryOp.SUB, lo, alo))
        binds.append(ax if _is_zero(start) else BinOp(BinaryOp.ADD, start, ax))
    v = tuple(iv.var for iv in ivs)
    src = _shift(v, [a for a, _ in alloc], 1)
    body = (BufferStore(cache, BufferLoad(buf, src), v) if read
            else BufferStore(buf, BufferLoad(cache, v), src))
    block = Block(name, tuple(ivs), body)
    out: Stmt = BlockRealize(tuple(binds), IntImm("bool", 1), block)
    for ax, lo, ext in reversed(loops):
        out = For(ax, lo, ext, ForKind.SERIAL, out)
    return out


class _Redirect(Mutator):
    """Accesses to `buf` in the blocks this rewriter is let into go to the cache, shifted."""

    def __init__(self, buf: Buffer, cache: Buffer, base: list[PrimExpr], stores: bool) -> None:
        self.buf, self.cache, self.base, self.stores = buf, cache, base, stores

    def visit_Var(self, v: Var) -> PrimExpr:
        return self.cache.data if v is self.buf.data and self.cache.data is not None else v

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if e.buffer is self.buf:
            return BufferLoad(self.cache, _shift(idx, self.base, -1), e.span)
        return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        s = self.generic_visit(s)
        if self.stores and s.buffer is self.buf:
            return BufferStore(self.cache, s.value, _shift(s.indices, self.base, -1), s.span)
        return s

    def regions(self, regions: tuple[BufferRegion, ...]) -> tuple[BufferRegion, ...]:
        out = []
        for x in regions:
            rs = tuple(Range(self.visit(r.min), self.visit(r.extent)) for r in x.region)
            if x.buffer is self.buf:
                rs = tuple(Range(_shift((r.min,), [b], -1)[0], r.extent)
                           for r, b in zip(rs, self.base))
                out.append(BufferRegion(self.cache, rs))
            else:
                out.append(x if all(a == b for a, b in zip(rs, x.region))
                           else BufferRegion(x.buffer, rs))
        return tuple(out)

    def block(self, b: Block, writes: bool) -> Block:
        body = self.visit(b.body)
        init = None if b.init is None else self.visit(b.init)
        match = tuple(MatchBufferRegion(m.buffer, self.regions((m.source,))[0])
                      for m in b.match_buffers)
        return dataclasses.replace(b, body=body, init=init, reads=self.regions(b.reads),
                                   writes=self.regions(b.writes) if writes else b.writes,
                                   match_buffers=match)

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        block = self.block(s.block, self.stores)
        return dataclasses.replace(s, iter_values=self.visit(s.iter_values),
                                   predicate=self.visit(s.predicate), block=block)


class _Rewrite(Mutator):
    """Walks the scope: lets `_Redirect` into the blocks that `pick` chooses."""

    def __init__(self, pick: Any, redirect: _Redirect, stage: Block) -> None:
        self.pick, self.redirect, self.stage = pick, redirect, stage

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        if s.block is self.stage:
            return s
        how = self.pick(s.block)
        if how is None:
            return s
        self.redirect.stores = how
        return self.redirect.visit_BlockRealize(s)


# -- the primitives ----------------------------------------------------------------------------


@dataclasses.dataclass
class _Scope:
    path: tree.Path  # to the target block
    at: int  # index of the scope Block in path
    block: Block
    func: Any


def _scope(ctx: Ctx, rv: BlockRV, what: str, scope_name: str) -> _Scope:
    if not _valid_scope(scope_name):
        raise ScheduleError(f"{what}: {scope_name!r} is not a storage scope")
    func = tree.root_block(ctx.func)
    path = tree.block_path(func.body, rv.name)
    if path is None:
        path = Ctx(func, ctx.func_name).block_path(rv)
    at = max(i for i, s in enumerate(path[:-1]) if isinstance(s, Block))
    return _Scope(path, at, path[at], func)  # type: ignore[arg-type]


def _only_writer(sc: _Scope, buf: Buffer, what: str) -> BlockRealize | None:
    found = [b for b in child_blocks(sc.block.body) if _writes(b.block, buf)]
    if len(found) > 1:
        raise ScheduleError(f"{what}: buffer {buf.name!r} is written by {len(found)} blocks "
                            f"({', '.join(b.block.name for b in found)}) in the scope; "
                            f"it must have one producer")
    return found[0] if found else None


def _nth(found: list[Buffer], n: int, what: str, block: str, kind: str) -> Buffer:
    if not 0 <= n < len(found):
        raise ScheduleError(f"{what}: block {block!r} has {len(found)} {kind} buffers "
                            f"({', '.join(b.name for b in found)}); index {n} is out of range")
    return found[n]


def _fresh(func: Any, name: str) -> str:
    """`name`, or `name_1`, `name_2`... when a block or buffer of `func` has it."""
    taken = {b.block.name for b in tree.blocks_under(func.body)}
    for p in tree.walk(func.body):
        if isinstance(p[-1], Block):
            taken.update(b.name for b in p[-1].alloc_buffers)
    taken.update(b.name for _, b in func.buffer_map)
    out, k = name, 0
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    return out


def _cache_buffer(sc: _Scope, buf: Buffer, scope: str, alloc: list[tuple[PrimExpr, PrimExpr]]
                  ) -> Buffer:
    name = _fresh(sc.func, f"{buf.name}_{scope.replace('.', '_')}")
    shape = tuple(ext for _, ext in alloc)
    return Buffer(name, shape, buf.dtype, Var(name, "handle"), scope=scope)


def _finish(sc: _Scope, body: Stmt, cache: Buffer) -> Any:
    spath = tree.find(body, lambda s: isinstance(s, Block) and s.name == sc.block.name)
    assert spath is not None
    blk: Block = spath[-1]  # type: ignore[assignment]
    new = dataclasses.replace(blk, alloc_buffers=blk.alloc_buffers + (cache,))
    return sc.func.with_body(tree.replace(spath, new))


def cache_read(ctx: Ctx, rv: BlockRV, index: int, scope: str,
               consumers: list[str] | None = None) -> tuple[Any, BlockRV]:
    what = "cache_read"
    sc = _scope(ctx, rv, what, scope)
    target: BlockRealize = sc.path[-1]  # type: ignore[assignment]
    buf = _nth(read_buffers(target.block), index, what, target.block.name, "read")
    writer = _only_writer(sc, buf, what)
    kids = child_blocks(sc.block.body)
    after = kids[next(k for k, b in enumerate(kids) if b is writer) + 1:] if writer else kids
    readers = [b for b in after if _reads(b.block, buf)]  # what depends on the writer
    chosen = set(consumers) if consumers else None
    if writer is not None:
        related = chosen if chosen is not None else {b.block.name for b in readers}
        loc, pos = _location(sc.block, writer.block, related)
        wpath = tree.find(sc.path[0], lambda s: s is writer)
        assert wpath is not None
        at = _window(writer, wpath, loc, buf, False)
        alloc = _window(writer, wpath, sc.block, buf, False)
    else:
        loc, pos = sc.block, 0
        at = alloc = _input_region(sc, target, readers, buf)
    alloc_r = _fit(alloc, buf)
    cache = _cache_buffer(sc, buf, scope, alloc_r)
    stage = _stage(cache.name, cache, buf, _fit(at, buf), alloc_r, read=True)
    body = _insert(sc.path[0], loc, pos, stage)
    stage_block = tree.find(stage, lambda s: isinstance(s, Block))[-1]  # type: ignore[index]

    def pick(b: Block) -> bool | None:
        if chosen is not None and b.name not in chosen:
            return None
        return None if _writes(b, buf) else False

    redirect = _Redirect(buf, cache, [lo for lo, _ in alloc_r], stores=False)
    body = _rewrite_scope(body, sc.block.name, _Rewrite(pick, redirect, stage_block))
    return _finish(sc, body, cache), BlockRV(cache.name, ctx.func_name)


def _input_region(sc: _Scope, target: BlockRealize, readers: list[BlockRealize], buf: Buffer
                  ) -> list[Window | None]:
    """What a cache of an input buffer holds, as TVM 0.27 decides: what the block reads when
    blocks nested in it are guarded by predicates; else the scope's read region (declared,
    or what its blocks read), the whole buffer at the function's root."""
    if _guarded_inside(target.block):
        return _window(target, sc.path, sc.block, buf, True)
    declared = [r for r in sc.block.reads if r.buffer is buf]
    if declared:
        return [(r.min, r.extent.value) if isinstance(r.extent, IntImm) else None
                for r in declared[0].region]
    if sc.at <= 1 or not readers:  # the root block reads nothing TVM could name
        return [None] * len(buf.shape)
    paths = [tree.find(sc.path[0], lambda s, b=b: s is b) for b in readers]
    return _union_dims([_window(b, p, sc.block, buf, True) for b, p in zip(readers, paths)])


def _guarded_inside(block: Block) -> bool:
    return any(not (isinstance(b.predicate, IntImm) and b.predicate.value)
               for b in tree.blocks_under(block.body))


def cache_write(ctx: Ctx, rv: BlockRV, index: int, scope: str,
                consumers: list[str] | None = None) -> tuple[Any, BlockRV]:
    what = "cache_write"
    sc = _scope(ctx, rv, what, scope)
    target: BlockRealize = sc.path[-1]  # type: ignore[assignment]
    buf = _nth(written_buffers(target.block), index, what, target.block.name, "written")
    writer = _only_writer(sc, buf, what)
    if writer is not None and writer is not target:
        raise ScheduleError(f"{what}: block {target.block.name!r} is not the only block "
                            f"writing {buf.name!r}")
    chosen = set(consumers or ())
    kids = child_blocks(sc.block.body)
    after = kids[next((k for k, b in enumerate(kids) if b is target), -1) + 1:]
    related = {b.block.name for b in after if _reads(b.block, buf) and b.block.name not in chosen}
    loc, pos = _location(sc.block, target.block, related)
    at = _window(target, sc.path, loc, buf, False)
    alloc_r = _fit(_window(target, sc.path, sc.block, buf, False), buf)
    cache = _cache_buffer(sc, buf, scope, alloc_r)
    stage = _stage(cache.name, cache, buf, _fit(at, buf), alloc_r, read=False)
    body = _insert(sc.path[0], loc, pos, stage)
    stage_block = tree.find(stage, lambda s: isinstance(s, Block))[-1]  # type: ignore[index]

    def pick(b: Block) -> bool | None:
        if b is target.block:
            return True
        return False if b.name in chosen else None

    redirect = _Redirect(buf, cache, [lo for lo, _ in alloc_r], stores=True)
    body = _rewrite_scope(body, sc.block.name, _Rewrite(pick, redirect, stage_block))
    return _finish(sc, body, cache), BlockRV(cache.name, ctx.func_name)


def _rewrite_scope(body: Stmt, scope_name: str, rw: _Rewrite) -> Stmt:
    spath = tree.find(body, lambda s: isinstance(s, Block) and s.name == scope_name)
    assert spath is not None
    blk: Block = spath[-1]  # type: ignore[assignment]
    return tree.replace(spath, dataclasses.replace(blk, body=rw.visit(blk.body)))

