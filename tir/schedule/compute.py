"""Block-moving primitives: compute_at, reverse_compute_at, compute_inline,
reverse_compute_inline. Each returns `(new PrimFunc, None)` or raises ScheduleError."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import bound
from ..expr import BinaryOp, BinOp, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import simplify
from ..stmt import BlockRealize, For, ForKind, IterType, Stmt, seq
from . import tree
from .analysis import (
    accesses, readers, region_under, thread_ranges, written_buffer, writers,
)
from .inline import compute_inline, reverse_compute_inline
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV

__all__ = ["compute_at", "compute_inline", "reverse_compute_at", "reverse_compute_inline"]


def _cast(e: PrimExpr, dtype: str) -> PrimExpr:
    if e.dtype == dtype:
        return e
    return IntImm(dtype, e.value) if isinstance(e, IntImm) else e.astype(dtype)


def _outer_ranges(lpath: tree.Path) -> dict[Var, tuple[PrimExpr, int]]:
    return {s.loop_var: (s.min, s.extent.value) for s in lpath
            if isinstance(s, For) and isinstance(s.extent, IntImm)}


def _nest_vars(bpath: tree.Path) -> frozenset[Var]:
    """Loop vars of the nest a block is moved out of (they are gone after the move)."""
    return frozenset(lp.loop_var for lp in bpath[tree.exclusive_top(bpath):]
                     if isinstance(lp, For))


def _may_overflow(lo: PrimExpr, ext: PrimExpr, dom: Any,
                  outer: dict[Var, tuple[PrimExpr, int]]) -> bool:
    """Can `[lo, lo + ext)` leave the iter var's domain for some outer loop values?"""
    window = bound(lo, outer)
    if window is None or not all(isinstance(x, IntImm) for x in (window[0], ext, dom.min,
                                                                   dom.extent)):
        return True
    first, last = window[0].value, window[0].value + window[1] - 1 + ext.value - 1
    return first < dom.min.value or last >= dom.min.value + dom.extent.value


def _regenerate(br: BlockRealize, dims: dict[Var, tuple[PrimExpr, PrimExpr]],
                preserve_unit_loops: bool,
                outer: dict[Var, tuple[PrimExpr, int]] | None = None,
                stale: frozenset[Var] = frozenset()) -> Stmt:
    """A fresh loop nest running `br`'s block over `dims` (iter var -> (min, extent));
    other iter vars sweep their whole domain. Where a window may stick out of the domain
    (a non-divisible tile), the block gets a predicate, as TVM adds."""
    loops: list[tuple[Var, PrimExpr]] = []
    values: list[PrimExpr] = []
    guards: list[PrimExpr] = []
    for iv in br.block.iter_vars:
        lo, ext = dims.get(iv.var, (iv.dom.min, iv.dom.extent))
        ext = simplify(ext)
        dtype = iv.var.dtype
        if isinstance(ext, IntImm) and ext.value == 1 and not preserve_unit_loops:
            values.append(_cast(simplify(lo), dtype))
        else:
            ax = Var(f"ax{len(loops)}", dtype)
            loops.append((ax, _cast(ext, dtype)))
            values.append(simplify(_cast(lo, dtype) + ax))
        if iv.var in dims and _may_overflow(lo, ext, iv.dom, outer or {}):
            end = simplify(_cast(iv.dom.min, dtype) + _cast(iv.dom.extent, dtype))
            guards.append(BinOp(BinaryOp.LT, values[-1], end))
    pred = br.predicate
    if any(v in stale for v in free_vars(pred)):
        pred = IntImm("bool", 1)  # a split's guard over the old loops: `guards` re-clip it
    for g in guards:
        pred = g if isinstance(pred, IntImm) and pred.value else BinOp(BinaryOp.AND, pred, g)
    body: Stmt = BlockRealize(tuple(values), pred, br.block)
    for ax, ext in reversed(loops):
        body = For(ax, IntImm(ax.dtype, 0), ext, ForKind.SERIAL, body)
    return body


def _store_dims(br: BlockRealize, idx: tuple[PrimExpr, ...], what: str) -> dict[Var, int]:
    """iter var -> the dim of the written buffer it indexes (writes must be `B[v0, v1, ...]`)."""
    own = {iv.var for iv in br.block.iter_vars}
    out: dict[Var, int] = {}
    for d, i in enumerate(idx):
        if isinstance(i, Var) and i in own and i not in out:
            out[i] = d
    spatial = [iv.var for iv in br.block.iter_vars if iv.iter_type is IterType.SPATIAL]
    if any(v not in out for v in spatial):
        raise ScheduleError(f"{what}: block {br.block.name!r} must write its buffer at its "
                            f"spatial iter vars, e.g. B[vi, vj]")
    return out


def _remove_nest(body: Stmt, block_name: str) -> Stmt:
    path = tree.block_path(body, block_name)
    assert path is not None
    top = tree.exclusive_top(path)
    return tree.replace(path[:top + 1], None)


def _insert(loop: For, new: Stmt, holds: list[tree.Path], after: bool) -> For:
    """`loop` with `new` placed before the first (or after the last) child holding `holds`."""
    kids = list(loop.body.seq) if hasattr(loop.body, "seq") else [loop.body]
    owners = [k for k in range(len(kids))
              if any(any(s is kids[k] for s in p) for p in holds)]
    at = (owners[-1] + 1) if after else owners[0]
    return dataclasses.replace(loop, body=seq(kids[:at] + [new] + kids[at:]))


def _check_placement(ctx: Ctx, bpath: tree.Path, lpath: tree.Path, what: str) -> None:
    block, loop = bpath[-1], lpath[-1]
    if any(s is loop for s in bpath):
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is already an ancestor of "
                            f"block {block.block.name!r}")
    block_scope = next((s for s in reversed(bpath[:-1]) if isinstance(s, BlockRealize)), None)
    loop_scope = next((s for s in reversed(lpath) if isinstance(s, BlockRealize)), None)
    if block_scope is not loop_scope:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is not in the same block "
                            f"scope as block {block.block.name!r}")


def compute_at(ctx: Ctx, block_rv: BlockRV, loop_rv: LoopRV, preserve_unit_loops: bool = False,
               index: int = -1) -> tuple[Any, None]:
    what = "compute_at"
    bpath, lpath = ctx.block_path(block_rv), ctx.loop_path(loop_rv)
    _check_placement(ctx, bpath, lpath, what)
    producer: BlockRealize = bpath[-1]  # type: ignore[assignment]
    loop: For = lpath[-1]  # type: ignore[assignment]
    buf, idx = written_buffer(producer, what)
    if any(b is buf for _, b in ctx.func.buffer_map):
        raise ScheduleError(f"{what}: block {producer.block.name!r} is an output block (it "
                            f"writes {buf.name!r}, a parameter); it cannot move under a loop")
    others = [p[-1].block.name for p in writers(ctx.func.body, buf) if p[-1] is not producer]
    if others:
        raise ScheduleError(f"{what}: block {producer.block.name!r} is not a complete block: "
                            f"block {others[0]!r} also writes {buf.name!r}")
    dims = _store_dims(producer, idx, what)
    users = [p for p in readers(ctx.func.body, buf) if p[-1] is not producer]
    inside = [p for p in users if any(s is loop for s in p)]
    if not inside:
        raise ScheduleError(f"{what}: no block under loop {loop.loop_var.name!r} reads "
                            f"{buf.name!r}, the buffer block {producer.block.name!r} writes")
    outside = [p[-1].block.name for p in users if not any(s is loop for s in p)]
    if outside:
        raise ScheduleError(f"{what} requires all the consumers of block "
                            f"{producer.block.name!r} to be under loop {loop.loop_var.name!r}; "
                            f"block {outside[0]!r} outside it also reads {buf.name!r}")
    if _position(ctx.func.body, producer) > _position(ctx.func.body, inside[0][-1]):
        raise ScheduleError(f"{what}: block {producer.block.name!r} runs after its consumer "
                            f"{inside[0][-1].block.name!r}")
    region = region_under(inside, loop, buf, reads=True, relaxed=thread_ranges(lpath, buf))
    new_dims = {v: region[d] for v, d in dims.items()}
    nest = _regenerate(producer, new_dims, preserve_unit_loops, _outer_ranges(lpath),
                       _nest_vars(bpath))
    body = _remove_nest(ctx.func.body, producer.block.name)
    lpath = tree.loop_path(body, loop.loop_var)  # type: ignore[assignment]
    holds = tree.find_all(lpath[-1], lambda s: any(s is q[-1] for q in inside))
    new_loop = _insert(lpath[-1], nest, holds, after=False)
    return ctx.func.with_body(tree.replace(lpath, new_loop)), None


def _position(root: Stmt, node: Stmt) -> int:
    for k, path in enumerate(tree.walk(root)):
        if path[-1] is node:
            return k
    return -1


def reverse_compute_at(ctx: Ctx, block_rv: BlockRV, loop_rv: LoopRV,
                       preserve_unit_loops: bool = False, index: int = -1) -> tuple[Any, None]:
    what = "reverse_compute_at"
    bpath, lpath = ctx.block_path(block_rv), ctx.loop_path(loop_rv)
    _check_placement(ctx, bpath, lpath, what)
    consumer: BlockRealize = bpath[-1]  # type: ignore[assignment]
    loop: For = lpath[-1]  # type: ignore[assignment]
    reads = accesses(consumer.block)[0]
    produced = [(b, i) for b, i in reads if any(any(s is loop for s in p)
                                                 for p in writers(ctx.func.body, b))]
    if not produced:
        raise ScheduleError(f"{what}: no block under loop {loop.loop_var.name!r} writes a "
                            f"buffer that block {consumer.block.name!r} reads")
    buf, idx = produced[0]
    outside = [p[-1].block.name for b, _ in reads for p in writers(ctx.func.body, b)
               if not any(s is loop for s in p) and p[-1] is not consumer]
    if outside:
        raise ScheduleError(f"{what} requires all the producers of block "
                            f"{consumer.block.name!r} to be under loop {loop.loop_var.name!r}; "
                            f"block {outside[0]!r} outside it writes what it reads")
    dims = {}
    own = {iv.var for iv in consumer.block.iter_vars}
    for d, i in enumerate(idx):
        if isinstance(i, Var) and i in own:
            dims[i] = d
    inside = [p for p in writers(ctx.func.body, buf)]
    region = region_under(inside, loop, buf, reads=False, relaxed=thread_ranges(lpath, buf))
    nest = _regenerate(consumer, {v: region[d] for v, d in dims.items()}, preserve_unit_loops,
                       _outer_ranges(lpath), _nest_vars(bpath))
    body = _remove_nest(ctx.func.body, consumer.block.name)
    lpath = tree.loop_path(body, loop.loop_var)  # type: ignore[assignment]
    holds = tree.find_all(lpath[-1], lambda s: any(s is q[-1] for q in inside))
    new_loop = _insert(lpath[-1], nest, holds, after=True)
    return ctx.func.with_body(tree.replace(lpath, new_loop)), None
