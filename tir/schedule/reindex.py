"""`reindex` and `cache_index`: stage a buffer (or a computed index) a block reads through a new
buffer indexed by the block's own iter vars. reindex, as TVM does before tensorizing:

    C[vi, vj] += A[vi, vk] * B[vk, vj]        reindex(C, ("read", 1))
becomes
    B_reindex[v0, v1] = B[v1, v0]             block "B_reindex_reindex", before the nest
    C[vi, vj] += A[vi, vk] * B_reindex[vj, vk]

The new buffer's dims are the iter vars the access uses, in the block's order; a written
buffer is copied back after the block's nest instead (block "C_reindex").
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import Mutator, simplify, substitute
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, Range, Stmt, seq,
)
from . import tree
from .analysis import accesses
from .layout import buffer_of
from .bounded import BoundedDivision
from .state import Ctx, ScheduleError
from .trace import BlockRV


class _Reindex(Mutator):
    """Accesses of `old` (loads; stores too when `stores`) become `new[index]`."""

    def __init__(self, old: Buffer, new: Buffer, index: tuple[PrimExpr, ...], stores: bool
                 ) -> None:
        self.old, self.new, self.index, self.stores = old, new, index, stores

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        if e.buffer is self.old:
            return BufferLoad(self.new, self.index, e.span)
        return self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        new = self.generic_visit(s)
        if self.stores and s.buffer is self.old:
            return dataclasses.replace(new, buffer=self.new, indices=self.index)
        return new

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        return s  # nested blocks keep their own accesses


def _the_index(block: Block, buf: Buffer, kind: str) -> tuple[PrimExpr, ...]:
    """The one index tuple the block accesses `buf` at (TVM requires a single region)."""
    from ...ir.structural import structural_equal  # ir sits above tir

    reads, writes = accesses(block)
    found = [idx for b, idx in (reads + writes) if b is buf]
    if kind == "read" and any(b is buf for b, _ in writes):
        raise ScheduleError(f"reindex: block {block.name!r} also writes {buf.name!r}; reindex "
                            f"it as ('write', ...)")
    first = found[0]
    if any(not structural_equal(idx, first) for idx in found[1:]):
        raise ScheduleError(f"reindex: block {block.name!r} accesses {buf.name!r} at "
                            f"different indices; it must access one region")
    return first


def reindex(ctx: Ctx, rv: BlockRV, kind: str, index: int) -> tuple[Any, BlockRV]:
    buf = buffer_of(ctx, rv, kind, index, "reindex")
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    idx = _simplified_in_domains(_the_index(br.block, buf, kind), br.block)
    used_vars = {v for e in idx for v in free_vars(e)}
    used = [iv for iv in br.block.iter_vars if iv.var in used_vars]
    for iv in used:
        if not (isinstance(simplify(iv.dom.min), IntImm) and simplify(iv.dom.min).value == 0):
            raise ScheduleError(f"reindex: iter var {iv.var.name!r} of block {name!r} does not "
                                f"start at 0")
    shape = tuple(_as_dim(iv.dom.extent) for iv in used)
    new = Buffer(f"{buf.name}_reindex", shape, buf.dtype, Var(f"{buf.name}_reindex", "handle"),
                 scope=buf.scope)
    new_index = tuple(iv.var for iv in used)
    block = _Reindex(buf, new, new_index, stores=kind == "write").generic_visit(br.block)
    block = _redeclare(block, buf, new, new_index)
    body = tree.replace(path, dataclasses.replace(br, block=block))
    stage_name = new.name + ("_reindex" if kind == "read" else "")
    stage = _copy_nest(stage_name, used, buf, idx, new, read=kind == "read")
    body = _place(body, name, stage, before=kind == "read")
    func = tree.add_root_alloc(ctx.func.with_body(body), new)
    return func, BlockRV(stage_name, ctx.func_name)


def _simplified_in_domains(idx: tuple[PrimExpr, ...], block: Block) -> tuple[PrimExpr, ...]:
    """The index simplified knowing each iter var's domain, as TVM does before choosing the
    reindexed buffer's dims: `co // 64 * 3 + rc` with co in [0, 64) is `rc`, so co is no dim.
    Only an index that loses a variable this way is replaced."""
    from ..analyzer import Analyzer

    ana = Analyzer()
    for iv in block.iter_vars:
        if isinstance(simplify(iv.dom.extent), IntImm):
            ana.bind(iv.var, iv.dom)
    out = []
    for e in idx:
        simple = simplify(BoundedDivision(ana).visit(e))
        out.append(simple if set(free_vars(simple)) < set(free_vars(e)) else e)
    return tuple(out)


def _redeclare(block: Block, old: Buffer, new: Buffer, index: tuple[PrimExpr, ...]) -> Block:
    """The block's declared regions of `old` become the element of `new` it now touches."""
    from ..stmt import BufferRegion

    region = BufferRegion(new, tuple(Range(i, IntImm(i.dtype, 1)) for i in index))

    def swap(regions: tuple) -> tuple:
        return tuple(region if r.buffer is old else r for r in regions)

    return dataclasses.replace(block, reads=swap(block.reads), writes=swap(block.writes))


def _as_dim(extent: PrimExpr) -> PrimExpr:
    e = simplify(extent)
    return IntImm(e.dtype, e.value) if isinstance(e, IntImm) else e


def _copy_nest(name: str, used: list[IterVar], buf: Buffer, idx: tuple[PrimExpr, ...],
               new: Buffer, read: bool) -> Stmt:
    ivs = [IterVar(Var(f"v{k}", iv.var.dtype), Range(iv.dom.min, iv.dom.extent),
                   IterType.SPATIAL) for k, iv in enumerate(used)]
    loops = [Var(f"ax{k}", iv.var.dtype) for k, iv in enumerate(used)]
    vmap = {iv.var: new_iv.var for iv, new_iv in zip(used, ivs)}
    old_idx = tuple(substitute(idx, vmap))
    new_idx = tuple(iv.var for iv in ivs)
    if read:
        store = BufferStore(new, BufferLoad(buf, old_idx), new_idx)
    else:
        store = BufferStore(buf, BufferLoad(new, new_idx), old_idx)
    node: Stmt = BlockRealize(tuple(loops), IntImm("bool", 1), Block(name, tuple(ivs), store))
    for var, iv in reversed(list(zip(loops, ivs))):
        node = For(var, iv.dom.min, iv.dom.extent, ForKind.SERIAL, node)
    return node


def _place(body: Stmt, block_name: str, stage: Stmt, before: bool) -> Stmt:
    """`stage` just before (or after) the loop nest holding only the block."""
    path = tree.block_path(body, block_name)
    assert path is not None
    top = tree.exclusive_top(path)
    nest = path[top]
    pair = [stage, nest] if before else [nest, stage]
    return tree.replace(path[:top + 1], seq(pair))


class _IndexExprs(Mutator):
    """Collects (and, given `table`, replaces) the composite index expressions of loads."""

    def __init__(self, table: list[tuple[PrimExpr, Any]] | None = None) -> None:
        self.found: list[PrimExpr] = []
        self.table = table

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        out = []
        for i in e.indices:
            if isinstance(i, (Var, IntImm)) or _has_load(i):
                out.append(self.visit(i))
                continue
            if self.table is None:
                self.found.append(i)
                out.append(i)
            else:
                out.append(next(load for expr, load in self.table if _same(expr, i)))
        return BufferLoad(e.buffer, tuple(out), e.span)

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        return s


def _has_load(e: PrimExpr) -> bool:
    found = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, BufferLoad):
            found.append(x)
        elif dataclasses.is_dataclass(x):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x)
                         if isinstance(getattr(x, f.name), PrimExpr))
    return bool(found)


def _same(a: PrimExpr, b: PrimExpr) -> bool:
    from ...ir.structural import structural_equal  # ir sits above tir

    return structural_equal(a, b)


def cache_index(ctx: Ctx, rv: BlockRV, scope: str) -> tuple[Any, list[BlockRV]]:
    """Each composite index expression of the block's loads is computed once into an int
    buffer ("index_var_<k>", indexed by the iter vars it uses) by a block "index_<k>"
    before the block's nest, and read from there."""
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    collector = _IndexExprs()
    collector.visit(br.block.body)
    exprs: list[PrimExpr] = []
    for e in collector.found:
        if not any(_same(e, x) for x in exprs):
            exprs.append(e)
    if not exprs:
        raise ScheduleError(f"cache_index: block {br.block.name!r} reads no buffer at a "
                            f"computed index")
    table, stages, bufs = [], [], []
    for k, e in enumerate(exprs):
        used = [iv for iv in br.block.iter_vars if iv.var in set(free_vars(e))]
        name = f"index_var_{k}"
        buf = Buffer(name, tuple(_as_dim(iv.dom.extent) for iv in used), e.dtype,
                     Var(name, "handle"), scope=scope)
        table.append((e, BufferLoad(buf, tuple(iv.var for iv in used))))
        stages.append(_index_nest(f"index_{k}", used, buf, e))
        bufs.append(buf)
    block = dataclasses.replace(br.block, body=_IndexExprs(table).visit(br.block.body))
    body = tree.replace(path, dataclasses.replace(br, block=block))
    for stage in stages:  # each lands just before the block's nest, so in order
        body = _place(body, br.block.name, stage, before=True)
    func = ctx.func.with_body(body)
    for buf in bufs:
        func = tree.add_root_alloc(func, buf)
    return func, [BlockRV(f"index_{k}", ctx.func_name) for k in range(len(exprs))]


def _index_nest(name: str, used: list[IterVar], buf: Buffer, expr: PrimExpr) -> Stmt:
    ivs = [IterVar(Var(f"v{k}", iv.var.dtype), Range(iv.dom.min, iv.dom.extent),
                   IterType.SPATIAL) for k, iv in enumerate(used)]
    loops = [Var(f"ax{k}", iv.var.dtype) for k, iv in enumerate(used)]
    vmap = {iv.var: new.var for iv, new in zip(used, ivs)}
    store = BufferStore(buf, substitute(expr, vmap), tuple(iv.var for iv in ivs))
    node: Stmt = BlockRealize(tuple(loops), IntImm("bool", 1), Block(name, tuple(ivs), store))
    for var, iv in reversed(list(zip(loops, ivs))):
        node = For(var, iv.dom.min, iv.dom.extent, ForKind.SERIAL, node)
    return node
