"""Buffer-staging primitives: cache_inplace, decompose_reduction (cache_read and cache_write
are in cache_stage.py).

A cache_inplace stage is a copy block over the whole buffer (`B_local[v0, v1] = B[v0, v1]`) in
its own loop nest, as TVM makes it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import Mutator, substitute
from ..stmt import (
    Block, BlockRealize, Buffer, BufferRegion, BufferStore, For, ForKind, IterType, IterVar,
    Range, Stmt, seq,
)
from . import tree
from .analysis import read_buffers, written_buffers
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV


class _Rename(Mutator):
    """Loads (and stores, when `stores`) of `old` use `new` instead."""

    def __init__(self, old: Buffer, new: Buffer, loads: bool, stores: bool) -> None:
        self.old, self.new, self.loads, self.stores = old, new, loads, stores

    def visit_Var(self, v: Var) -> PrimExpr:
        # an opaque access (`T.call_extern(..., A.data)`) follows the buffer too
        hit = self.stores and v is self.old.data and self.new.data is not None
        return self.new.data if hit else v  # type: ignore[return-value]

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if self.loads and e.buffer is self.old:
            return BufferLoad(self.new, idx, e.span)
        return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        s = self.generic_visit(s)
        if self.stores and s.buffer is self.old:
            return dataclasses.replace(s, buffer=self.new)
        return s

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        return s  # only the block being cached changes, not blocks nested in it


def _nth(found: list[Buffer], n: int, what: str, block: str, kind: str) -> Buffer:
    if not 0 <= n < len(found):
        names = ", ".join(b.name for b in found)
        raise ScheduleError(f"{what}: block {block!r} has {len(found)} {kind} buffers "
                            f"({names}); index {n} is out of range")
    return found[n]


def _cache_buffer(buf: Buffer, scope: str) -> Buffer:
    name = f"{buf.name}_{scope.replace('.', '_')}"
    return Buffer(name, buf.shape, buf.dtype, Var(name, "handle"), scope=scope)


def copy_nest(name: str, dst: Buffer, src: Buffer) -> Stmt:
    """`for ax...: with block(name): dst[v...] = src[v...]` over the whole buffer."""
    dtype = "int64" if any(d.dtype == "int64" and not isinstance(d, IntImm)
                           for d in dst.shape) else "int32"
    ivs, loops = [], []
    for d, dim in enumerate(dst.shape):
        ext = IntImm(dtype, dim.value) if isinstance(dim, IntImm) else dim
        ivs.append(IterVar(Var(f"v{d}", dtype), Range(IntImm(dtype, 0), ext), IterType.SPATIAL))
        loops.append(Var(f"ax{d}", dtype))
    idx = tuple(iv.var for iv in ivs)
    block = Block(name, tuple(ivs), BufferStore(dst, BufferLoad(src, idx), idx))
    body: Stmt = BlockRealize(tuple(loops), IntImm("bool", 1), block)
    for ax, iv in reversed(list(zip(loops, ivs))):
        body = For(ax, IntImm(dtype, 0), iv.dom.extent, ForKind.SERIAL, body)
    return body


def decompose_reduction(ctx: Ctx, rv: BlockRV, loop_rv: LoopRV) -> tuple[Any, BlockRV]:
    what = "decompose_reduction"
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    if br.block.init is None:
        raise ScheduleError(f"{what}: block {br.block.name!r} has no init to decompose")
    loop = ctx.loop(loop_rv)
    below = tree.loops_above(path)
    if loop not in below:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is not above block "
                            f"{br.block.name!r}")
    reduce_vars = {x for iv, v in zip(br.block.iter_vars, br.iter_values)
                   if iv.iter_type is not IterType.SPATIAL for x in free_vars(v)}
    if any(lp.loop_var in reduce_vars for lp in below[:below.index(loop)]):
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} must be higher than every "
                            f"loop that binds a reduce iter var of block {br.block.name!r}")
    below = below[below.index(loop):]
    spatial = [(iv, v) for iv, v in zip(br.block.iter_vars, br.iter_values)
               if iv.iter_type is IterType.SPATIAL]
    used = {x for _, v in spatial for x in free_vars(v)}
    kept = [lp for lp in below if lp.loop_var in used]
    vmap = {lp.loop_var: Var(lp.loop_var.name + "_init", lp.loop_var.dtype) for lp in kept}
    dropped = {lp.loop_var for lp in below} - set(vmap)
    # conjuncts on the dropped reduction loops go, as in TVM: they only limit the reduction
    pred = substitute(_and_all([c for c in _conjuncts(br.predicate)
                                if not any(v in dropped for v in free_vars(c))]), vmap)
    fresh = {iv.var: Var(iv.var.name, iv.var.dtype) for iv, _ in spatial}  # own binders
    init_block = Block(br.block.name + "_init",
                       tuple(dataclasses.replace(iv, var=fresh[iv.var]) for iv, _ in spatial),
                       substitute(br.block.init, fresh), annotations=br.block.annotations)
    init: Stmt = BlockRealize(tuple(substitute(v, vmap) for _, v in spatial), pred, init_block)
    for lp in reversed(kept):
        init = For(vmap[lp.loop_var], lp.min, lp.extent, lp.kind, init, lp.thread_tag,
                   lp.annotations)
    update = dataclasses.replace(br.block, name=br.block.name + "_update", init=None)
    body = tree.replace(path, dataclasses.replace(br, block=update))
    lpath = tree.loop_path(body, loop.loop_var)
    assert lpath is not None
    body = tree.replace(lpath, seq([init, lpath[-1]]))
    rv.name = update.name  # NOTE: the handle follows the update block, as in TVM
    return ctx.func.with_body(body), BlockRV(init_block.name, ctx.func_name)


def _conjuncts(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.AND:
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _and_all(terms: list[PrimExpr]) -> PrimExpr:
    out: PrimExpr = IntImm("bool", 1)
    for n, term in enumerate(terms):
        out = term if n == 0 else BinOp(BinaryOp.AND, out, term)
    return out


def cache_inplace(ctx: Ctx, rv: BlockRV, index: int, scope: str) -> tuple[Any, list[BlockRV]]:
    """A block that reads and writes one buffer in place works on a `scope` copy of it: a
    copy-in stage right before the block and a copy-out stage right after it, under the
    block's own loops. TVM names both stages `<buffer>_<scope>`; handles here are names, so
    the copy-out stage gets a `_1` suffix to stay addressable."""
    what = "cache_inplace"
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    buf = _nth(read_buffers(br.block), index, what, br.block.name, "read")
    if not any(b is buf for b in written_buffers(br.block)):
        raise ScheduleError(f"{what}: block {br.block.name!r} reads {buf.name!r} but does not "
                            f"write it: it is not an in-place access (use cache_read)")
    cache = _cache_buffer(buf, scope)
    block = _Rename(buf, cache, loads=True, stores=True).generic_visit(br.block)
    block = dataclasses.replace(block, reads=_renamed(block.reads, buf, cache),
                                writes=_renamed(block.writes, buf, cache))
    renamed = dataclasses.replace(br, block=block)
    copy_in, copy_out = cache.name, f"{cache.name}_1"
    staged = seq([copy_nest(copy_in, cache, buf), renamed, copy_nest(copy_out, buf, cache)])
    func = tree.add_root_alloc(ctx.func.with_body(tree.replace(path, staged)), cache)
    return func, [BlockRV(copy_in, ctx.func_name), BlockRV(copy_out, ctx.func_name)]


def _renamed(regions: tuple[BufferRegion, ...], old: Buffer, new: Buffer
             ) -> tuple[BufferRegion, ...]:
    """Declared regions of `old` name `new` instead (same region: the copy is whole)."""
    return tuple(BufferRegion(new, r.region) if r.buffer is old else r for r in regions)
