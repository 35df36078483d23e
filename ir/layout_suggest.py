"""`relax.analysis.suggest_layout_transforms`: given new layouts for a prim_func's outputs,
the block and input-buffer layouts that follow from them.

A suggestion is made for a block (not nested in another) whose stores to a transformed output
index it by its own iteration variables, each once, in order: the block's iteration space
then takes the output's map, and so does each input the block reads at those same indices.
Nothing is suggested where the map is not a bijection of the output's shape, or the block
indexes the output any other way (products, flattening): TVM's answer there is also none.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..tir import stmt as ts
from ..tir.expr import BufferLoad, IntImm
from ..tir.function import PrimFunc
from ..tir.functor import post_order_visit
from ..tir.index_map import IndexMap


class LayoutSuggestError(ValueError, RuntimeError):
    """The prim_func and the maps given do not go together (TVM raises a RuntimeError)."""


def suggest_layout_transforms(func: PrimFunc, write_buffer_transforms: list[Any]
                              ) -> dict[Any, dict[Any, IndexMap]]:
    """{block: {block: its map, buffer var: that buffer's map}} for each block a layout can
    be suggested for; the maps in `write_buffer_transforms` apply to the last parameters."""
    for t in write_buffer_transforms:
        assert isinstance(t, IndexMap) or callable(t), \
            f"a write buffer transform is an IndexMap or a function, not {t!r}"
    if len(write_buffer_transforms) > len(func.params):
        raise LayoutSuggestError(
            f"Incompatible PrimFunc and write_transformations: {len(func.params)} parameters, "
            f"{len(write_buffer_transforms)} transformations")
    if not write_buffer_transforms:
        return {}
    outputs = [func.buffer_of(p) for p in func.params[-len(write_buffer_transforms):]]
    maps = {buf: _as_index_map(t, buf) for buf, t in zip(outputs, write_buffer_transforms)
            if buf is not None}
    suggestions: dict[Any, dict[Any, IndexMap]] = {}
    for block, nested in _blocks(func):
        found = None if nested else _suggest(block, maps)
        if found:
            suggestions[block] = found
    return suggestions


def _as_index_map(t: IndexMap | Callable[..., Any], buf: ts.Buffer) -> IndexMap:
    if isinstance(t, IndexMap):
        m = t
    else:
        try:
            m = IndexMap.from_func(t, ndim=len(buf.shape))
        except (TypeError, ValueError) as err:
            raise LayoutSuggestError(f"Mismatch between output buffer shape and index map: "
                                     f"{err}") from None
    if len(m.initial_indices) != len(buf.shape):
        raise LayoutSuggestError(f"Mismatch between output buffer shape and index map: "
                                 f"{buf.name} has {len(buf.shape)} dims, the map takes "
                                 f"{len(m.initial_indices)}")
    return m


def _blocks(func: PrimFunc) -> list[tuple[ts.Block, bool]]:
    """Each block below the root, and whether another block (nesting or nested) shares its
    body: TVM leaves such blocks alone."""
    found: list[ts.Block] = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, ts.Block) else None)
    found = [b for b in found if not (b.name == "root" and b is found[-1])]
    out = []
    for b in found:
        inner: list[Any] = []
        post_order_visit(b.body, lambda n: inner.append(n) if isinstance(n, ts.Block) else None)
        outer = any(b is not o and _contains(o, b) for o in found)
        out.append((b, bool(inner) or outer))
    return out


def _contains(outer: ts.Block, block: ts.Block) -> bool:
    hit: list[bool] = []
    post_order_visit(outer.body, lambda n: hit.append(True) if n is block else None)
    return bool(hit)


def _suggest(block: ts.Block, maps: dict[ts.Buffer, IndexMap]) -> dict[Any, IndexMap] | None:
    iters = [iv.var for iv in block.iter_vars]
    stores: list[ts.BufferStore] = []
    post_order_visit(block.body, lambda n: stores.append(n)
                     if isinstance(n, ts.BufferStore) and n.buffer in maps else None)
    if len(stores) != 1 or list(stores[0].indices) != iters:
        return None  # the output is not indexed by the block's own iterators, in order
    store = stores[0]
    m = maps[store.buffer]
    if not _bijective(m, store.buffer.shape):
        return None
    result: dict[Any, IndexMap] = {block: m, store.buffer.data: m}
    loads: list[BufferLoad] = []
    post_order_visit(block.body, lambda n: loads.append(n) if isinstance(n, BufferLoad) else None)
    for load in loads:
        if list(load.indices) == iters and load.buffer.data not in result:
            result[load.buffer.data] = m
    return result


def _bijective(m: IndexMap, shape: tuple[Any, ...]) -> bool:
    """Whether the map sends the shape's index space onto a space of the same size (for the
    affine maps layouts use, splits that do not divide show up as a bigger image)."""
    try:
        image = m.map_shape(list(shape))
    except ValueError:
        return False
    if not all(isinstance(d, IntImm) for d in image) or \
            not all(isinstance(d, IntImm) for d in shape):
        return False
    return math.prod(d.value for d in image) == math.prod(d.value for d in shape)
