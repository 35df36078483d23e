"""`rfactor`: split a reduction in two, through a buffer indexed by one of its loops.

    C[i] = C[i] + A[i, k]           (k split into k_0, k_1; rfactor(k_1, factor_axis=0))
becomes
    C_rf[vk_1, i] += A[i, k_0 * 8 + k_1]        block "C_rf": k_1 is now a spatial iter var
    C[i] += C_rf[vk_1, i]                       block "C": the rest reduces over k_1 alone

as TVM does it: the rfactor block keeps the original loops, its iter vars are the rf loop's,
the original spatial ones, then one per other reduction loop; the write-back block gets fresh
copies of the spatial loops and of the rf loop, in their original order.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import substitute
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, IterType, IterVar, Range, Stmt, seq,
)
from . import tree
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV

_COMBINERS = (BinaryOp.ADD, BinaryOp.MUL, BinaryOp.MIN, BinaryOp.MAX)


def _reduction_parts(block: Block) -> tuple[BufferStore, BinaryOp, PrimExpr]:
    """The update store, its combiner and the combined-in value (`C[i] = C[i] + rhs`)."""
    name = block.name
    if block.init is None:
        raise ScheduleError(f"rfactor: block {name!r} is not a reduction block (no T.init())")
    store = block.body
    if not isinstance(store, BufferStore) or not isinstance(block.init, BufferStore):
        raise ScheduleError(f"rfactor: the body and init of block {name!r} must each be one "
                            f"buffer store")
    value = store.value
    if isinstance(value, BinOp) and value.op in _COMBINERS:
        for acc, rhs in ((value.a, value.b), (value.b, value.a)):
            if (isinstance(acc, BufferLoad) and acc.buffer is store.buffer
                    and _same_indices(acc.indices, store.indices)):
                return store, value.op, rhs
    raise ScheduleError(f"rfactor: block {name!r} does not update {store.buffer.name!r} by "
                        f"a commutative reducer (+, *, min, max) of its old value")


def _same_indices(a: tuple[PrimExpr, ...], b: tuple[PrimExpr, ...]) -> bool:
    from ...ir.structural import structural_equal  # a lazy import: ir sits above tir

    return len(a) == len(b) and all(structural_equal(x, y) for x, y in zip(a, b))


def _loop_roles(br: BlockRealize, loops: list[For], rf_loop: For) -> tuple[list[For], set]:
    """The reduction loops (those binding reduce iter vars) and the spatial loop vars;
    errors when a loop binds both kinds, or the rf loop is not a reduction loop."""
    spatial_vars: set[Var] = set()
    reduce_vars: set[Var] = set()
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        target = spatial_vars if iv.iter_type is IterType.SPATIAL else reduce_vars
        target.update(free_vars(value))
    name = br.block.name
    for lp in loops:
        if lp.loop_var in spatial_vars and lp.loop_var in reduce_vars:
            raise ScheduleError(f"rfactor: loop {lp.loop_var.name!r} binds both spatial and "
                                f"reduce iter vars of block {name!r}")
    if rf_loop.loop_var not in reduce_vars:
        raise ScheduleError(f"rfactor: loop {rf_loop.loop_var.name!r} is not a reduction loop "
                            f"of block {name!r} (it binds no reduce iter var)")
    return [lp for lp in loops if lp.loop_var in reduce_vars], spatial_vars


def rfactor(ctx: Ctx, rv: LoopRV, factor_axis: int) -> tuple[Any, BlockRV]:
    loop = ctx.loop(rv)
    blocks = tree.blocks_under(loop)
    if len(blocks) != 1:
        raise ScheduleError(f"rfactor: loop {loop.loop_var.name!r} must hold exactly one block "
                            f"(it holds {len(blocks)})")
    path = ctx.block_path(BlockRV(blocks[0].block.name, ctx.func_name))
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    store, op, rhs = _reduction_parts(br.block)
    top = tree.exclusive_top(path)
    loops = [s for s in path[top:-1] if isinstance(s, For)]
    if len(loops) != len(tree.loops_above(path)):
        raise ScheduleError(f"rfactor: the loops above block {br.block.name!r} must nest only "
                            f"it (a sibling statement shares one of them)")
    reduce_loops, spatial_vars = _loop_roles(br, loops, loop)
    ndim = len(store.indices)
    axis = factor_axis + ndim + 1 if factor_axis < 0 else factor_axis
    if not 0 <= axis <= ndim:
        raise ScheduleError(f"rfactor: factor_axis {factor_axis} is out of range for buffer "
                            f"{store.buffer.name!r} of {ndim} dims")
    buf = store.buffer
    shape = list(buf.shape)
    extent = loop.extent  # buffer dims are int64 constants, as the parser makes them
    shape.insert(axis, IntImm("int64", extent.value) if isinstance(extent, IntImm) else extent)
    rf_buf = Buffer(f"{buf.name}_rf", tuple(shape), buf.dtype, Var(f"{buf.name}_rf", "handle"),
                    scope=buf.scope)
    rf_nest = _rf_nest(br, store, op, rhs, loop, loops, reduce_loops, rf_buf, axis)
    wb_nest = _writeback_nest(br, store, op, loop, loops, spatial_vars, rf_buf, axis)
    body = tree.replace(path[:top + 1], seq([rf_nest, wb_nest]))
    func = tree.add_root_alloc(ctx.func.with_body(body), rf_buf)
    return func, BlockRV(f"{br.block.name}_rf", ctx.func_name)


def _iv(lp: For, kind: IterType) -> IterVar:
    return IterVar(Var(f"v{lp.loop_var.name}", lp.loop_var.dtype), Range(lp.min, lp.extent),
                   kind)


def _rf_nest(br: BlockRealize, store: BufferStore, op: BinaryOp, rhs: PrimExpr, rf_loop: For,
             loops: list[For], reduce_loops: list[For], rf_buf: Buffer, axis: int) -> Stmt:
    """The rfactor block under the original loops."""
    rf_iv = _iv(rf_loop, IterType.SPATIAL)
    others = [lp for lp in reduce_loops if lp is not rf_loop]
    loop_ivs = {rf_loop.loop_var: rf_iv, **{lp.loop_var: _iv(lp, IterType.REDUCE)
                                            for lp in others}}
    to_iv = {v: iv.var for v, iv in loop_ivs.items()}
    ivs, values, vmap = [rf_iv], [rf_loop.loop_var], {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if iv.iter_type is IterType.SPATIAL:
            fresh = dataclasses.replace(iv, var=Var(iv.var.name, iv.var.dtype))
            ivs.append(fresh)
            values.append(value)
            vmap[iv.var] = fresh.var
        else:
            vmap[iv.var] = substitute(value, to_iv)
    for lp in others:
        ivs.append(loop_ivs[lp.loop_var])
        values.append(lp.loop_var)
    idx = list(substitute(store.indices, vmap))
    idx.insert(axis, rf_iv.var)
    new_rhs = substitute(rhs, vmap)
    if others:
        update: Stmt = BufferStore(rf_buf, BinOp(op, BufferLoad(rf_buf, tuple(idx)), new_rhs),
                                   tuple(idx))
        init: Stmt | None = BufferStore(rf_buf, substitute(br.block.init.value, vmap),
                                        tuple(idx))
    else:  # every reduction loop is now spatial: a plain store, as TVM makes it
        update, init = BufferStore(rf_buf, new_rhs, tuple(idx)), None
    block = Block(f"{br.block.name}_rf", tuple(ivs), update, init=init,
                  annotations=br.block.annotations)
    body: Stmt = BlockRealize(tuple(values), br.predicate, block)
    for lp in reversed(loops):
        body = dataclasses.replace(lp, body=body)
    return body


def _writeback_nest(br: BlockRealize, store: BufferStore, op: BinaryOp, rf_loop: For,
                    loops: list[For], spatial_vars: set, rf_buf: Buffer, axis: int) -> Stmt:
    """The original block, now reducing the rf buffer over the rf loop alone."""
    kept = [lp for lp in loops if lp is rf_loop or lp.loop_var in spatial_vars]
    fresh_loops = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in kept}
    rf_iv = _iv(rf_loop, IterType.REDUCE)
    ivs, values, vmap = [rf_iv], [fresh_loops[rf_loop.loop_var]], {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if iv.iter_type is IterType.SPATIAL:
            fresh = dataclasses.replace(iv, var=Var(iv.var.name, iv.var.dtype))
            ivs.append(fresh)
            values.append(substitute(value, fresh_loops))
            vmap[iv.var] = fresh.var
    idx = tuple(substitute(store.indices, vmap))
    rf_idx = list(idx)
    rf_idx.insert(axis, rf_iv.var)
    combined = BinOp(op, BufferLoad(store.buffer, idx), BufferLoad(rf_buf, tuple(rf_idx)))
    init = BufferStore(store.buffer, substitute(br.block.init.value, vmap), idx)
    block = dataclasses.replace(br.block, iter_vars=tuple(ivs), reads=(), writes=(),
                                body=BufferStore(store.buffer, combined, idx), init=init)
    pred = br.predicate
    if any(v not in fresh_loops for v in free_vars(pred)):
        pred = IntImm("bool", 1)  # the predicate guards a dropped loop: the rf block keeps it
    body: Stmt = BlockRealize(tuple(values), substitute(pred, fresh_loops), block)
    for lp in reversed(kept):
        body = dataclasses.replace(lp, loop_var=fresh_loops[lp.loop_var], body=body)
    return body
