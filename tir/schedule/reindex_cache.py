"""reindex_cache_read / reindex_cache_write, as TVM 0.27 makes them: a cache_read (write)
whose cache is indexed by `index_map` of the block's iter vars (`lambda i, j: (j, i // 2,
i % 2)` gives a (128, 64, 2) cache of a 128 x 128 buffer). Only the block itself switches to
the cache; the stage goes where cache_read (cache_write) puts it (cache_stage.py) and runs the
block's iter vars the map uses over the block's loops below that place."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import simplify, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, Stmt
from . import tree
from .cache_stage import (
    _finish, _fresh, _insert, _location, _only_writer, _reads, _scope, child_blocks,
)
from .layout import buffer_of
from .reindex import _Reindex, _redeclare, _the_index
from .state import Ctx, ScheduleError
from .iter_domain import window
from .trace import BlockRV


def _cache_shape(new_index: list[PrimExpr], block: Block, what: str) -> tuple[PrimExpr, ...]:
    """The extent each mapped index sweeps over the iter vars' domains (each from 0)."""
    ranges = {}
    for iv in block.iter_vars:
        ext = simplify(iv.dom.extent)
        if isinstance(ext, IntImm):
            ranges[iv.var] = (iv.dom.min, ext.value)
    shape = []
    for e in new_index:
        w = window(simplify(e), ranges)
        lo = None if w is None else simplify(w[0])
        if w is None or not (isinstance(lo, IntImm) and lo.value == 0):
            raise ScheduleError(f"{what}: cannot size the cache along {e} over the domains of "
                                f"block {block.name!r}")
        shape.append(IntImm(e.dtype, w[1]))
    return tuple(shape)


def _stage(name: str, br: BlockRealize, loops: list[For], used: list[IterVar], buf: Buffer,
           idx: tuple[PrimExpr, ...], cache: Buffer, new_index: list[PrimExpr], read: bool
           ) -> Stmt:
    """The copy over the `used` iter vars, bound as in the block, under copies of the block's
    `loops` (those below the stage's place) that the bindings use."""
    binds = {iv.var: v for iv, v in zip(br.block.iter_vars, br.iter_values)}
    wanted = {v for iv in used for v in free_vars(binds[iv.var])}
    kept = [lp for lp in loops if lp.loop_var in wanted]
    lmap = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in kept}
    ivs = [IterVar(Var(iv.var.name, iv.var.dtype), iv.dom, IterType.SPATIAL) for iv in used]
    vmap = {iv.var: new.var for iv, new in zip(used, ivs)}
    src = tuple(substitute(e, vmap) for e in idx)
    dst = tuple(substitute(e, vmap) for e in new_index)
    body = (BufferStore(cache, BufferLoad(buf, src), dst) if read
            else BufferStore(buf, BufferLoad(cache, dst), src))
    values = tuple(substitute(binds[iv.var], lmap) for iv in used)
    out: Stmt = BlockRealize(values, IntImm("bool", 1), Block(name, tuple(ivs), body))
    for lp in reversed(kept):
        out = For(lmap[lp.loop_var], lp.min, lp.extent, ForKind.SERIAL, out)
    return out


def reindex_cache(ctx: Ctx, rv: BlockRV, kind: str, index: int, scope: str,
                  index_map: Any) -> tuple[Any, BlockRV]:
    what = f"reindex_cache_{kind}"
    buf = buffer_of(ctx, rv, kind, index, what)
    sc = _scope(ctx, rv, what, scope)
    br: BlockRealize = sc.path[-1]  # type: ignore[assignment]
    block = br.block
    try:
        idx = _the_index(block, buf, kind)
    except IndexError:
        raise ScheduleError(f"{what}: block {block.name!r} does not access one point of "
                            f"{buf.name!r}") from None
    if index_map.ndim != len(block.iter_vars):
        raise ScheduleError(f"{what}: the index map takes {index_map.ndim} indices, block "
                            f"{block.name!r} has {len(block.iter_vars)} iter vars")
    new_index = [simplify(e) for e in index_map.map_indices([iv.var for iv in block.iter_vars])]
    mapped = {v for e in new_index for v in free_vars(e)}
    if not {v for e in idx for v in free_vars(e)} <= mapped:
        raise ScheduleError(f"{what}: the index map {new_index} loses iter vars the access "
                            f"{buf.name}{list(idx)} of block {block.name!r} uses")
    used = [iv for iv in block.iter_vars if iv.var in mapped]
    writer = _only_writer(sc, buf, what)
    if kind == "read":
        loc, pos = _location(sc.block, writer.block, {block.name}) if writer else (sc.block, 0)
    else:
        kids = child_blocks(sc.block.body)
        after = kids[next(k for k, b in enumerate(kids) if b is br) + 1:]
        loc, pos = _location(sc.block, block, {b.block.name for b in after
                                               if _reads(b.block, buf)})
    start = next(i for i, s in enumerate(sc.path) if s is loc)
    loops = [s for s in sc.path[start + 1:] if isinstance(s, For)]
    name = _fresh(sc.func, f"{buf.name}_{scope.replace('.', '_')}")
    cache = Buffer(name, _cache_shape(new_index, block, what), buf.dtype, Var(name, "handle"),
                   scope=scope)
    stage = _stage(name, br, loops, used, buf, idx, cache, new_index, kind == "read")
    body = _insert(sc.path[0], loc, pos, stage)
    new_block = _Reindex(buf, cache, tuple(new_index), stores=kind == "write").generic_visit(block)
    new_block = _redeclare(new_block, buf, cache, tuple(new_index))
    tpath = tree.find(body, lambda s: s is br)
    assert tpath is not None
    body = tree.replace(tpath, dataclasses.replace(br, block=new_block))
    return _finish(sc, body, cache), BlockRV(name, ctx.func_name)
