"""`fuse_reduction_epilogue`: an epilogue adding to a reduction's result folds into the
reduction's init, as TVM does it:

    temp[vi, vj] = 0;  temp[vi, vj] += A[vi, vk] * B[vj, vk]      block "multiply"
    D[vi, vj] = temp[vi, vj] + C[vi, vj]                          block "add"
becomes
    D[vi, vj] = C[vi, vj];  D[vi, vj] += A[vi, vk] * B[vj, vk]     block "multiply"

The reduction must sum (init 0, update `+`); the epilogue must use its result once, only
added to (not scaled), at the same element the reduction writes. As in TVM, the addition may
sit inside a clipping or ReLU (`min`/`max` against values that do not read the result):
`D = min(max(temp + C, lo), hi)` becomes init `D = min(max(C, lo), hi)` and update
`D = min(max(D + A * B, lo), hi)`, so the clip is applied after every reduction step
(TVM's behaviour: the same result only when the clip does not bind midway).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, PrimExpr, Var
from ..functor import Visitor, substitute
from ..stmt import BlockRealize, BufferStore, IterType
from . import tree
from .rfactor import _reduction_parts
from .state import Ctx, ScheduleError
from .trace import BlockRV


class _Uses(Visitor):
    def __init__(self, buf: Any) -> None:
        self.buf, self.count = buf, 0

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.count += e.buffer is self.buf
        self.generic_visit(e)


def _uses(e: Any, buf: Any) -> int:
    u = _Uses(buf)
    u.visit(e)
    return u.count


def _split_addend(value: PrimExpr, buf: Any, name: str) -> tuple[BufferLoad, PrimExpr | None]:
    """`value` as `buf[...] + rest` (either order); rest None when value is the load alone."""
    if isinstance(value, BufferLoad) and value.buffer is buf:
        return value, None
    if isinstance(value, BinOp) and value.op is BinaryOp.ADD:
        for load, rest in ((value.a, value.b), (value.b, value.a)):
            if isinstance(load, BufferLoad) and load.buffer is buf and not _uses(rest, buf):
                return load, rest
    raise ScheduleError(f"fuse_reduction_epilogue: block {name!r} must add the reduction's "
                        f"result {buf.name!r} to something, using it once and unscaled")


_CLAMPS = (BinaryOp.MIN, BinaryOp.MAX)


def _unwrap_clamps(value: PrimExpr, buf: Any) -> tuple[list[tuple[BinOp, bool]], PrimExpr]:
    """The min/max layers around the part of `value` that reads `buf` (each with whether that
    part is its left operand), outermost first, and that part."""
    layers: list[tuple[BinOp, bool]] = []
    while isinstance(value, BinOp) and value.op in _CLAMPS:
        left_reads, right_reads = _uses(value.a, buf), _uses(value.b, buf)
        if left_reads and right_reads:
            break
        layers.append((value, bool(left_reads)))
        value = value.a if left_reads else value.b
    return layers, value


def _rewrap(layers: list[tuple[BinOp, bool]], core: PrimExpr) -> PrimExpr:
    for layer, core_left in reversed(layers):
        core = dataclasses.replace(layer, a=core) if core_left else dataclasses.replace(
            layer, b=core)
    return core


def fuse_reduction_epilogue(ctx: Ctx, red_rv: BlockRV, epi_rv: BlockRV) -> tuple[Any, None]:
    what = "fuse_reduction_epilogue"
    rpath, epath = ctx.block_path(red_rv), ctx.block_path(epi_rv)
    red: BlockRealize = rpath[-1]  # type: ignore[assignment]
    epi: BlockRealize = epath[-1]  # type: ignore[assignment]
    store, op, _ = _reduction_parts(red.block)
    buf, rname, ename = store.buffer, red.block.name, epi.block.name
    init = red.block.init
    if op is not BinaryOp.ADD or not _is_zero(init.value):  # type: ignore[union-attr]
        raise ScheduleError(f"{what}: block {rname!r} must be a sum starting from 0")
    estore = epi.block.body
    if not isinstance(estore, BufferStore) or epi.block.init is not None:
        raise ScheduleError(f"{what}: block {ename!r} must be one buffer store")
    if _uses(estore.value, buf) != 1:
        raise ScheduleError(f"{what}: block {ename!r} must read {buf.name!r} exactly once")
    layers, core = _unwrap_clamps(estore.value, buf)
    load, rest = _split_addend(core, buf, ename)
    vmap = _iter_map(load.indices, store.indices, epi, red, what)
    layers = [(substitute(layer, vmap), left) for layer, left in layers]
    target_idx = tuple(substitute(estore.indices, vmap))
    start = substitute(rest, vmap) if rest is not None else init.value  # type: ignore[union-attr]
    new_init = BufferStore(estore.buffer, _rewrap(layers, start), target_idx)
    step = BinOp(BinaryOp.ADD, BufferLoad(estore.buffer, target_idx),
                 store.value.b if _acc_first(store, buf) else store.value.a)
    new_update = BufferStore(estore.buffer, _rewrap(layers, step), target_idx)
    block = dataclasses.replace(red.block, init=new_init, body=new_update, reads=(), writes=())
    body = tree.replace(rpath, dataclasses.replace(red, block=block))
    epath = tree.block_path(body, ename)
    top = tree.exclusive_top(epath)  # type: ignore[arg-type]
    return ctx.func.with_body(tree.replace(epath[:top + 1], None)), None  # type: ignore[index]


def _acc_first(store: BufferStore, buf: Any) -> bool:
    value = store.value
    return isinstance(value.a, BufferLoad) and value.a.buffer is buf  # type: ignore[attr-defined]


def _is_zero(e: PrimExpr) -> bool:
    return getattr(e, "value", None) == 0


def _iter_map(epi_idx: tuple, red_idx: tuple, epi: BlockRealize, red: BlockRealize,
              what: str) -> dict[Var, Var]:
    """Epilogue iter var -> reduction iter var, from the element both touch."""
    red_spatial = {iv.var for iv in red.block.iter_vars if iv.iter_type is IterType.SPATIAL}
    epi_vars = {iv.var for iv in epi.block.iter_vars}
    vmap: dict[Var, Var] = {}
    for e, r in zip(epi_idx, red_idx):
        if not (isinstance(e, Var) and e in epi_vars and isinstance(r, Var) and r in red_spatial):
            raise ScheduleError(f"{what}: block {epi.block.name!r} must read the element "
                                f"block {red.block.name!r} writes, indexed by iter vars")
        vmap[e] = r
    doms = {iv.var: iv.dom for iv in (*epi.block.iter_vars, *red.block.iter_vars)}
    from ...ir.structural import structural_equal  # ir sits above tir

    if any(not structural_equal(doms[e], doms[r]) for e, r in vmap.items()):
        raise ScheduleError(f"{what}: block {epi.block.name!r} does not cover the same "
                            f"elements as block {red.block.name!r}")
    if len(vmap) != len(epi_vars):
        raise ScheduleError(f"{what}: block {epi.block.name!r} iterates over more than the "
                            f"elements of the reduction")
    return vmap
