"""Layout primitives: transform_layout (a buffer's indices through an IndexMap) and
transform_block_layout (a block's iteration space through one).

    transform_layout("B", ("write", 0), lambda i, j: [j // 4, i, j % 4])
        B (8, 12) becomes B (3, 8, 4); every B[vi, vj] becomes B[vj // 4, vi, vj % 4]
    transform_block_layout("B", lambda i, j: [j, i])
        block B iterates (ax0, ax1) over (12, 8), its body reading v1, v0 where vi, vj were

A parameter buffer changes in the function's signature, as in TVM.
"""

from __future__ import annotations

import dataclasses
from math import prod
from typing import Any

from ..analyzer import Analyzer
from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..functor import Mutator, simplify, substitute
from ..index_map import IndexMap
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterVar, Range, Stmt
from . import tree
from .analysis import read_buffers, written_buffers
from .block_layout_fuse import fused_layout, recovered_value
from .bounded import BoundedDivision
from .layout_pad import (
    input_assumption, pad_constant, padded_loop_writer, padded_producer, padding_block,
    symbolic_split,
)
from .state import Ctx, ScheduleError
from .trace import BlockRV


class _Remap(Mutator):
    """Accesses of `old` become accesses of `new` at the mapped indices."""

    def __init__(self, old: Buffer, new: Buffer, index_map: IndexMap,
                 skip: BlockRealize | None = None) -> None:
        self.old, self.new, self.map, self.skip = old, new, index_map, skip

    def visit_BlockRealize(self, s: BlockRealize) -> Stmt:
        return s if s is self.skip else self.generic_visit(s)

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        return self.new if buf is self.old else buf

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if e.buffer is self.old:
            return BufferLoad(self.new, tuple(self.map.map_indices(idx)), e.span)
        return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        new = self.generic_visit(s)
        if s.buffer is self.old:
            return dataclasses.replace(new, indices=tuple(self.map.map_indices(new.indices)))
        return new

    def visit_Block(self, b: Block) -> Stmt:
        new = self.generic_visit(b)
        if any(r.buffer is self.old for r in b.reads + b.writes):
            new = dataclasses.replace(new, reads=(), writes=())  # regions are re-derived
        return new


def buffer_of(ctx: Ctx, rv: BlockRV, kind: str, index: int, what: str) -> Buffer:
    br = ctx.block(rv)
    found = read_buffers(br.block) if kind == "read" else written_buffers(br.block)
    if not 0 <= index < len(found):
        raise ScheduleError(f"{what}: block {br.block.name!r} has {len(found)} {kind} "
                            f"buffers; index {index} is out of range")
    return found[index]


def transform_layout(ctx: Ctx, rv: BlockRV, kind: str, index: int, index_map: IndexMap,
                     pad_value: Any, assume_injective: bool = False) -> tuple[Any, None]:
    """Re-lays `buf` out through `index_map`. A map onto a bigger layout needs a pad_value
    (layout_pad.py), or `assume_injective`: then the padding is only left unused."""
    what = "transform_layout"
    buf = buffer_of(ctx, rv, kind, index, what)
    if index_map.ndim != len(buf.shape):
        raise ScheduleError(f"{what}: the index map takes {index_map.ndim} indices but "
                            f"buffer {buf.name!r} has {len(buf.shape)} dims")
    sym = symbolic_split(index_map) if pad_value is not None else None
    n = simplify(buf.shape[0]) if len(buf.shape) == 1 else None
    if sym is not None and isinstance(n, IntImm):
        return _symbolic_padding(ctx, buf, index_map, sym.extents(n.value), pad_value)
    try:
        shape = index_map.map_shape(buf.shape)
    except ValueError as err:
        raise ScheduleError(f"{what}: buffer {buf.name!r}: {err}") from None
    new = dataclasses.replace(buf, shape=tuple(shape), data=Var(buf.name, "handle"))
    body, producer = ctx.func.body, None
    if pad_value is not None:  # the dtype must match, padded or not
        pad_constant(pad_value, buf, tuple(Var(f"i{k}", "int32") for k in range(len(shape))))
    old_size = prod(int(simplify(d).value) for d in buf.shape)
    new_size = prod(int(d.value) for d in shape)
    if new_size != old_size and not (assume_injective and pad_value is None
                                     and new_size > old_size):
        padded = None if pad_value is None else padded_producer(ctx.func, buf, new, index_map,
                                                                pad_value)
        post = None
        if padded is None and pad_value is not None:
            post = padded_loop_writer(ctx.func, buf, new, index_map, pad_value)
        if padded is None and post is None and pad_value is not None:
            remapped = _Remap(buf, new, index_map).visit(body)
            post = padding_block(remapped, buf, new, index_map, pad_value)
            is_input = any(b is buf for _, b in ctx.func.buffer_map) and not any(
                isinstance(p[-1], BufferStore) and p[-1].buffer is buf for p in tree.walk(body))
            if post is None and is_input:
                post = input_assumption(remapped, buf, new, index_map, pad_value)
        if padded is None and post is None:
            dims = [int(simplify(d).value) for d in buf.shape]
            raise ScheduleError(f"{what}: mapping buffer {buf.name!r} {dims} to "
                                f"{[int(d.value) for d in shape]} is not a bijection; padded "
                                f"layouts are only supported for one producer splitting a 1-d "
                                f"buffer as `lambda i: [i // c, i % c]`, with a pad_value")
        body, producer = padded if padded is not None else (post, None)
    body = _Remap(buf, new, index_map, producer).visit(body)
    bmap = tuple((v, new if b is buf else b) for v, b in ctx.func.buffer_map)
    func = dataclasses.replace(ctx.func.with_body(body), buffer_map=bmap)
    return func, None


def _symbolic_padding(ctx: Ctx, buf: Buffer, index_map: IndexMap, shape: list[PrimExpr],
                      pad_value: Any) -> tuple[Any, None]:
    """`lambda i: [i // n, i % n]` with a symbolic n: the producer iterates the padded layout
    (whether n divides the buffer is only known at run time, so the padding check stays)."""
    new = dataclasses.replace(buf, shape=tuple(shape), data=Var(buf.name, "handle"))
    padded = padded_producer(ctx.func, buf, new, index_map, pad_value)
    if padded is None:
        raise ScheduleError(f"transform_layout: buffer {buf.name!r} split by a symbolic "
                            f"factor needs one producer iterating it, to pad in place")
    body, producer = padded
    body = _Remap(buf, new, index_map, producer).visit(body)
    bmap = tuple((v, new if b is buf else b) for v, b in ctx.func.buffer_map)
    return dataclasses.replace(ctx.func.with_body(body), buffer_map=bmap), None


def transform_block_layout(ctx: Ctx, rv: BlockRV, index_map: IndexMap) -> tuple[Any, None]:
    """The block's iter vars, permuted by `index_map`, become a new loop nest of its own."""
    what = "transform_block_layout"
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    top = tree.exclusive_top(path)
    loops = [s for s in path[top:-1] if isinstance(s, For)]
    if len(loops) != len(tree.loops_above(path)) or len(loops) != len(br.block.iter_vars):
        raise ScheduleError(f"{what}: block {name!r} must be alone in a loop nest with one loop "
                            f"per iter var")
    if any(v is not lp.loop_var for v, lp in zip(br.iter_values, loops)):
        raise ScheduleError(f"{what}: block {name!r} must bind each iter var to its own loop "
                            f"(a trivial binding)")
    if index_map.ndim != len(br.block.iter_vars):
        raise ScheduleError(f"{what}: the index map takes {index_map.ndim} indices but block "
                            f"{name!r} has {len(br.block.iter_vars)} iter vars")
    if not (isinstance(br.predicate, IntImm) and br.predicate.value):
        raise ScheduleError(f"{what}: block {name!r} has a predicate")
    order = _permutation(index_map)
    if order is None:
        return _fused_block_layout(ctx, path, top, br, index_map)
    old_ivs = br.block.iter_vars
    new_ivs, vmap, new_loops = [], {}, []
    for k, src in enumerate(order):
        iv = old_ivs[src]
        var = Var(f"v{k}", iv.var.dtype)
        new_ivs.append(IterVar(var, Range(IntImm(iv.var.dtype, 0), iv.dom.extent), iv.iter_type))
        vmap[iv.var] = var
        new_loops.append(Var(f"ax{k}", iv.var.dtype))
    block = dataclasses.replace(br.block, iter_vars=tuple(new_ivs),
                                body=substitute(br.block.body, vmap),
                                init=substitute(br.block.init, vmap) if br.block.init else None)
    node: Stmt = BlockRealize(tuple(new_loops), br.predicate, block)
    for var, iv in reversed(list(zip(new_loops, new_ivs))):
        node = For(var, IntImm(var.dtype, 0), iv.dom.extent, ForKind.SERIAL, node)
    return ctx.func.with_body(tree.replace(path[:top + 1], node)), None


def _fused_block_layout(ctx: Ctx, path: Any, top: int, br: BlockRealize, index_map: IndexMap
                        ) -> tuple[Any, None]:
    """transform_block_layout for a map fusing iter vars (block_layout_fuse.py)."""
    name = br.block.name
    initial = list(index_map.initial_indices)
    ivs = list(br.block.iter_vars)
    found = fused_layout(list(index_map.final_indices), initial, ivs, name)
    if found is None:
        raise ScheduleError(f"transform_block_layout: the index map is not an affine fusion "
                            f"of the iter vars of block {name!r} (each output a dense "
                            f"combination of its own vars, extents known)")
    outs, recover = found
    dtype = ivs[0].var.dtype
    new_vars = [Var(f"v{k}", dtype) for k in range(len(outs))]
    vmap = {iv.var: recovered_value(recover[var], new_vars, dtype)
            for var, iv in zip(initial, ivs)}
    new_ivs = [IterVar(v, Range(IntImm(dtype, 0), IntImm(dtype, ext)), kind)
               for v, (ext, kind) in zip(new_vars, outs)]
    ana = Analyzer()
    for iv in new_ivs:
        ana.bind(iv.var, iv.dom)
    fold = BoundedDivision(ana).visit  # `co // 64` with co in [0, 64) is 0, as TVM folds it
    block = dataclasses.replace(br.block, iter_vars=tuple(new_ivs),
                                body=fold(substitute(br.block.body, vmap)),
                                init=fold(substitute(br.block.init, vmap))
                                if br.block.init else None)
    loops = [Var(f"ax{k}", dtype) for k in range(len(outs))]
    node: Stmt = BlockRealize(tuple(loops), br.predicate, block)
    for var, iv in reversed(list(zip(loops, new_ivs))):
        node = For(var, IntImm(dtype, 0), iv.dom.extent, ForKind.SERIAL, node)
    return ctx.func.with_body(tree.replace(path[:top + 1], node)), None


def _permutation(index_map: IndexMap) -> list[int] | None:
    """For a map whose outputs are its inputs in some order, output k's input position."""
    pos = {v: k for k, v in enumerate(index_map.initial_indices)}
    order = [pos.get(e) for e in index_map.final_indices]  # type: ignore[call-overload]
    if None in order or sorted(order) != list(range(len(pos))):  # type: ignore[type-var]
        return None
    return order  # type: ignore[return-value]
