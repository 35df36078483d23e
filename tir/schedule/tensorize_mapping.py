"""Which loops of a block a tensor intrinsic's description covers, and tiling the block so that
those loops match it: TVM's `get_tensorize_loop_mapping` and `tile_with_tensor_intrin`.

The mapping pairs iter vars from the innermost out: the description's last iter var takes the
block's last iter var of the same kind (spatial, reduction), the one before takes the next
such iter var further out, and so on (the two list their iter vars in a consistent order).
Each pair's loops are the ones that bind them (`binding = loop_var + something free of it`),
so the mapping does not depend on how the block's loops are ordered. A block loop whose extent
the description's does not divide fails the mapping, unless padding is allowed: then the block
is padded first (pad_einsum) to multiples of the description's extents.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import affine, int_value
from ..expr import PrimExpr, Var
from ..function import PrimFunc
from ..functor import simplify
from ..stmt import BlockRealize, For, IterType
from .state import ScheduleError
from .tensorize import TensorIntrin, _nest, _strip_root
from .trace import BlockRV, LoopRV


@dataclasses.dataclass
class TensorizeInfo:
    """`loop_map`: block loop sref -> the description loop it maps to; `desc_loop_indexer`:
    description loop -> its position in the description's nest; `block_iter_paddings`: per
    block iter var, the multiple to pad it to (None: no padding needed)."""

    loop_map: dict[Any, For]
    desc_loop_indexer: dict[Any, int]
    block_iter_paddings: list[int] | None = None


def _binding_loop(value: PrimExpr, loops: list[For]) -> For | None:
    """The loop `value` moves with one to one: `value == loop_var + (terms free of it)`."""
    for lp in loops:
        form = affine(simplify(value), {lp.loop_var})
        if form is not None and form.coeffs == {lp.loop_var: 1}:
            return lp
    return None


def _desc_nest(desc_func: PrimFunc) -> tuple[list[For], BlockRealize]:
    body, _ = _strip_root(desc_func)
    loops, inner = _nest(body)
    if not isinstance(inner, BlockRealize):
        raise ScheduleError("get_tensorize_loop_mapping: the description is not one block "
                            "under a loop nest")
    return loops, inner


def _mapping(block_loops: list[For], br: BlockRealize, desc_loops: list[For],
             desc: BlockRealize, allow_padding: bool
             ) -> tuple[list[tuple[For, For]], list[int]] | None:
    """(block loop, description loop) pairs and the per-iter-var paddings, or None."""
    kinds = [iv.iter_type for iv in br.block.iter_vars]
    pairs: list[tuple[For, For]] = []
    paddings = [1] * len(kinds)
    nxt = len(kinds) - 1
    for div, dvalue in reversed(list(zip(desc.block.iter_vars, desc.iter_values))):
        d_loop = _binding_loop(dvalue, desc_loops)
        d_ext = None if d_loop is None else int_value(d_loop.extent)
        if d_ext is None:
            return None
        k = next((k for k in range(nxt, -1, -1) if kinds[k] is div.iter_type), None)
        if k is None or div.iter_type not in (IterType.SPATIAL, IterType.REDUCE):
            return None
        nxt = k - 1
        b_loop = _binding_loop(br.iter_values[k], block_loops)
        b_ext = None if b_loop is None else int_value(b_loop.extent)
        if b_ext is None:
            return None
        if b_ext % d_ext:
            if not allow_padding:
                return None
            paddings[k] = d_ext
        pairs.append((b_loop, d_loop))  # type: ignore[arg-type]
    return pairs, paddings


def get_tensorize_loop_mapping(sch: Any, block: BlockRV | str, desc_func: PrimFunc,
                               allow_padding: bool = False) -> TensorizeInfo | None:
    """The loops of `block` that `desc_func`'s loops map to, or None when they do not fit."""
    block_rv = sch._block_rv(block)
    br: BlockRealize = sch._ctx().block(block_rv)
    block_loops = [sch.get(rv) for rv in sch.get_loops(block_rv)]
    desc_loops, desc = _desc_nest(desc_func)
    found = _mapping(block_loops, br, desc_loops, desc, allow_padding)
    if found is None:
        return None
    pairs, paddings = found
    return TensorizeInfo({sch.get_sref(lp): d for lp, d in pairs},
                         {d: k for k, d in enumerate(desc_loops)},
                         paddings if any(p != 1 for p in paddings) else None)


def tile_with_tensor_intrin(sch: Any, block: BlockRV | str, intrin_name: str,
                            allow_padding: bool = False) -> LoopRV | None:
    """Splits each block loop the intrinsic covers by the description's extent and moves the
    inner parts innermost, in the description's order: returns the outermost of them (where
    `tensorize` then applies), or None when the intrinsic does not fit the block."""
    intrin = TensorIntrin.get(intrin_name)
    assert intrin is not None
    block_rv = sch._block_rv(block)
    br: BlockRealize = sch._ctx().block(block_rv)
    loop_rvs = sch.get_loops(block_rv)
    block_loops = [sch.get(rv) for rv in loop_rvs]
    desc_loops, desc = _desc_nest(intrin.desc)
    found = _mapping(block_loops, br, desc_loops, desc, allow_padding)
    if found is None:
        return None
    pairs, paddings = found
    if any(p != 1 for p in paddings):
        sch.pad_einsum(block_rv, paddings)
        loop_rvs = sch.get_loops(block_rv)  # padding rebuilt the nest: same order, new loops
        fresh = {lp.loop_var: sch.get(rv) for lp, rv in zip(block_loops, loop_rvs)}
        pairs = [(fresh[b.loop_var], d) for b, d in pairs]
        block_loops = [sch.get(rv) for rv in loop_rvs]
    rv_of = {b.loop_var: rv for b, rv in zip(block_loops, loop_rvs)}
    suffix: list[LoopRV | None] = [None] * len(desc_loops)
    inner: set[Var] = set()
    for b_loop, d_loop in pairs:
        _, inner_rv = sch.split(rv_of[b_loop.loop_var], [None, int_value(d_loop.extent)])
        inner.add(sch.get(inner_rv).loop_var)
        suffix[next(k for k, d in enumerate(desc_loops) if d is d_loop)] = inner_rv
    order: list[LoopRV] = []
    met = False
    for rv in sch.get_loops(block_rv):
        if sch.get(rv).loop_var in inner:
            met = True
        elif met:
            order.append(rv)
    tiled = [rv for rv in suffix if rv is not None]
    sch.reorder(*order, *tiled)
    return tiled[0]
