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
from typing import Any, Callable

from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import substitute
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, IterType, IterVar, LetStmt, Range, Stmt,
    seq,
)
from . import rfactor_checks as checks
from . import rfactor_tuple
from . import tree
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV

_COMBINERS = (BinaryOp.ADD, BinaryOp.MUL, BinaryOp.MIN, BinaryOp.MAX)


def _reduction_parts(block: Block) -> tuple[BufferStore, BinaryOp, PrimExpr]:
    """The update store, its combiner and the combined-in value (`C[i] = C[i] + rhs`)."""
    name = block.name
    if block.init is None:
        raise ScheduleError(f"rfactor: block {name!r} is not a reduction block (no T.init())")
    store = _inline_lets(block.body)
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


def _inline_lets(body: Stmt) -> Stmt:
    """`v = e; C[i] = f(v)` as `C[i] = f(e)`: TVM matches the reducer through lets."""
    while isinstance(body, LetStmt):
        body = substitute(body.body, {body.var: body.value})
    return body


def _same_indices(a: tuple[PrimExpr, ...], b: tuple[PrimExpr, ...]) -> bool:
    from ...ir.structural import structural_equal  # a lazy import: ir sits above tir

    return len(a) == len(b) and all(structural_equal(x, y) for x, y in zip(a, b))


class RFactorPredicateError(ScheduleError, RuntimeError):
    """TVM fails here with a plain runtime error, not a ScheduleError; this is both."""


def _loop_roles(br: BlockRealize, loops: list[For], rf_loop: For) -> tuple[set, set]:
    """The spatial and the reduce loop vars; errors when a loop binds both kinds, or the rf
    loop binds a spatial iter var (a loop binding nothing, of extent 1 after a fuse, is fine)."""
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
    if rf_loop.loop_var in spatial_vars:
        raise ScheduleError(f"rfactor: loop {rf_loop.loop_var.name!r} is not a reduction loop "
                            f"of block {name!r} (it binds a spatial iter var)")
    if rf_loop.loop_var in free_vars(br.predicate):
        raise RFactorPredicateError(f"rfactor: block {name!r} has a predicate on loop "
                                    f"{rf_loop.loop_var.name!r}, the loop to factor out")
    return spatial_vars, reduce_vars


def _check(ctx: Ctx, path: tree.Path, store: BufferStore, op: BinaryOp, loop: For,
           loops: list[For]) -> tuple[set, set]:
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    checks.check_init(br.block.name, br.block.init, store, op)
    checks.check_dominant(br, store)
    checks.check_bindings(br, loops)
    spatial_vars, reduce_vars = _loop_roles(br, loops, loop)
    checks.check_serial(br.block.name, [lp for lp in loops if lp.loop_var in reduce_vars])
    checks.check_stage_pipeline(ctx, path, store)
    return spatial_vars, reduce_vars


def _rf_buffer(buf: Buffer, loop: For, axis: int) -> Buffer:
    shape = list(buf.shape)
    extent = loop.extent  # the new dim keeps the loop extent's dtype, as in TVM
    shape.insert(axis, extent)
    # TVM's rf buffer of a 0-d one carries an explicit int64 zero offset
    offset = buf.elem_offset if buf.shape else IntImm("int64", 0)
    return Buffer(f"{buf.name}_rf", tuple(shape), buf.dtype, Var(f"{buf.name}_rf", "handle"),
                  scope=buf.scope, elem_offset=offset)


def rfactor(ctx: Ctx, rv: LoopRV, factor_axis: int) -> tuple[Any, BlockRV]:
    loop = ctx.loop(rv)
    blocks = tree.blocks_under(loop)
    if len(blocks) != 1:
        raise ScheduleError(f"rfactor: loop {loop.loop_var.name!r} must hold exactly one block "
                            f"(it holds {len(blocks)})")
    path = ctx.block_path(BlockRV(blocks[0].block.name, ctx.func_name))
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    loops = tree.loops_above(path)
    tup = rfactor_tuple.parse(br.block) if br.block.init is not None else None
    if tup is not None:
        store = tup.stores[0]
        for st in tup.stores:
            checks.check_dominant(br, st)
        checks.check_bindings(br, loops)
        spatial_vars, reduce_vars = _loop_roles(br, loops, loop)
        checks.check_serial(br.block.name, [lp for lp in loops if lp.loop_var in reduce_vars])
        checks.check_stage_pipeline(ctx, path, store)
    else:
        store, op, rhs = _reduction_parts(br.block)
        spatial_vars, reduce_vars = _check(ctx, path, store, op, loop, loops)
    ndim = len(store.indices)
    axis = factor_axis + ndim + 1 if factor_axis < 0 else factor_axis
    if not 0 <= axis <= ndim:
        raise ScheduleError(f"rfactor: factor_axis {factor_axis} is out of range for buffer "
                            f"{store.buffer.name!r} of {ndim} dims")
    if tup is not None:
        rf = {st.buffer: _rf_buffer(st.buffer, loop, axis) for st in tup.stores}
        rf_bufs = list(rf.values())
        rf_parts: Callable = lambda ivs, vmap: rfactor_tuple.rf_block_parts(  # noqa: E731
            br.block, tup, vmap, rf, axis, ivs[0].var)
        wb_parts: Callable = lambda rf_var, vmap: rfactor_tuple.writeback_parts(  # noqa: E731
            br.block, tup, vmap, rf, axis, rf_var)
    else:
        rf_bufs = [_rf_buffer(store.buffer, loop, axis)]
        rf_parts = _single_rf_parts(br, store, op, rhs, rf_bufs[0], axis)
        wb_parts = _single_wb_parts(br, store, op, rf_bufs[0], axis)
    rf_nest = _rf_nest(br, rf_parts, loop, loops)
    outer = next(i for i, s in enumerate(path) if s is loops[0])
    top = max(tree.exclusive_top(path), outer)
    exclusive = [s for s in path[top:-1] if isinstance(s, For)]
    fresh = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in loops}
    kept = [lp for lp in exclusive if lp is loop or lp.loop_var not in reduce_vars]
    wb_nest = _writeback_nest(br, wb_parts, loop, kept, fresh)
    # the shared loops above stay where they are, renamed, around the write-back nest
    shared_map = {lp.loop_var: fresh[lp.loop_var] for lp in loops if lp not in exclusive}
    wb_tree = substitute(tree.replace(path[outer:top + 1], wb_nest), shared_map)
    func = ctx.func.with_body(tree.replace(path[:outer + 1], seq([rf_nest, wb_tree])))
    for buf in rf_bufs:
        func = tree.add_root_alloc(func, buf)
    return func, BlockRV(f"{br.block.name}_rf", ctx.func_name)


def _iv(lp: For, kind: IterType) -> IterVar:
    return IterVar(Var(f"v{lp.loop_var.name}", lp.loop_var.dtype), Range(lp.min, lp.extent),
                   kind)


def _rf_iters(br: BlockRealize, rf_loop: For, loops: list[For]
              ) -> tuple[list[IterVar], list[PrimExpr], dict]:
    """The rf block's iter vars, their bindings and what the old iter vars become: the rf
    loop's (spatial), the spatial ones, the reduce ones that do not use the rf loop, then one
    reduce iter var per loop in the bindings of those that do."""
    rf_iv = _iv(rf_loop, IterType.SPATIAL)
    ivs, values, vmap = [rf_iv], [rf_loop.loop_var], {}
    touched = [(iv, v) for iv, v in zip(br.block.iter_vars, br.iter_values)
               if iv.iter_type is not IterType.SPATIAL and rf_loop.loop_var in free_vars(v)]
    used = set().union(*(free_vars(v) for _, v in touched)) if touched else set()
    per_loop = {lp.loop_var: _iv(lp, IterType.REDUCE) for lp in loops
                if lp.loop_var in used and lp is not rf_loop}
    to_iv = {rf_loop.loop_var: rf_iv.var, **{v: iv.var for v, iv in per_loop.items()}}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if any(iv is t for t, _ in touched):
            vmap[iv.var] = substitute(value, to_iv)
            continue
        copy = dataclasses.replace(iv, var=Var(iv.var.name, iv.var.dtype))
        ivs.append(copy)
        values.append(value)
        vmap[iv.var] = copy.var
    for var, iv in per_loop.items():
        ivs.append(iv)
        values.append(var)
    return ivs, values, vmap


def _rf_nest(br: BlockRealize, parts: Callable, rf_loop: For, loops: list[For]) -> Stmt:
    """The rfactor block under copies of all the original loops; `parts(ivs, vmap)` gives
    its body and init."""
    ivs, values, vmap = _rf_iters(br, rf_loop, loops)
    update, init = parts(ivs, vmap)
    block = Block(f"{br.block.name}_rf", tuple(ivs), update, init=init,
                  annotations=br.block.annotations)
    body: Stmt = BlockRealize(tuple(values), br.predicate, block)
    for lp in reversed(loops):
        body = dataclasses.replace(lp, body=body)
    return body


def _single_rf_parts(br: BlockRealize, store: BufferStore, op: BinaryOp, rhs: PrimExpr,
                     rf_buf: Buffer, axis: int) -> Callable:
    def parts(ivs: list[IterVar], vmap: dict) -> tuple[Stmt, Stmt | None]:
        idx = list(substitute(store.indices, vmap))
        idx.insert(axis, ivs[0].var)
        new_rhs = substitute(rhs, vmap)
        if all(iv.iter_type is IterType.SPATIAL for iv in ivs):
            # every reduction loop is now spatial: a plain store, as TVM makes it
            return BufferStore(rf_buf, new_rhs, tuple(idx)), None
        load = BufferLoad(rf_buf, tuple(idx))
        return (BufferStore(rf_buf, BinOp(op, load, new_rhs), tuple(idx)),
                BufferStore(rf_buf, substitute(br.block.init.value, vmap), tuple(idx)))
    return parts


def _single_wb_parts(br: BlockRealize, store: BufferStore, op: BinaryOp, rf_buf: Buffer,
                     axis: int) -> Callable:
    def parts(rf_var: Var, vmap: dict) -> tuple[Stmt, Stmt]:
        idx = tuple(substitute(store.indices, vmap))
        rf_idx = list(idx)
        rf_idx.insert(axis, rf_var)
        combined = BinOp(op, BufferLoad(store.buffer, idx), BufferLoad(rf_buf, tuple(rf_idx)))
        return (BufferStore(store.buffer, combined, idx),
                BufferStore(store.buffer, substitute(br.block.init.value, vmap), idx))
    return parts


def _writeback_nest(br: BlockRealize, parts: Callable, rf_loop: For, kept: list[For],
                    fresh: dict) -> Stmt:
    """The original block, now reducing the rf buffer over the rf loop alone;
    `parts(rf_var, vmap)` gives its body and init."""
    rf_iv = _iv(rf_loop, IterType.REDUCE)
    ivs, values, vmap = [rf_iv], [fresh[rf_loop.loop_var]], {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if iv.iter_type is IterType.SPATIAL:
            copy = dataclasses.replace(iv, var=Var(iv.var.name, iv.var.dtype))
            ivs.append(copy)
            values.append(substitute(value, fresh))
            vmap[iv.var] = copy.var
    body, init = parts(rf_iv.var, vmap)
    block = dataclasses.replace(br.block, iter_vars=tuple(ivs), reads=(), writes=(),
                                body=body, init=init)
    kept_vars = {lp.loop_var for lp in kept}
    pred = br.predicate
    if any(v in fresh and v not in kept_vars for v in free_vars(pred)):
        pred = IntImm("bool", 1)  # the predicate guards a dropped loop: the rf block keeps it
    node: Stmt = BlockRealize(tuple(values), substitute(pred, fresh), block)
    for lp in reversed(kept):
        node = dataclasses.replace(lp, loop_var=fresh[lp.loop_var], body=node)
    return node
