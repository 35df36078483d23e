"""`sample_compute_location`: where a block may be computed, drawn at random.

The candidates, each with the location index a decision records (TVM's numbering): `-2`
inline (when compute_inline would succeed), `-1` root (leave the block where it is), and
`k` for the k-th loop above the block's first consumer, counted from the outside, when
compute_at there succeeds. Loops below the consumers' common loops are not candidates, nor
unit loops (nothing to share), nor loops inside the consumer's last reduction loop (the
block's result would be recomputed for every step of loops that only tile it).
"""

from __future__ import annotations

from typing import Any

from ..expr import IntImm
from ..function import free_vars
from ..stmt import IterType
from . import compute, query, tree
from .rv import LoopRV
from .state import Ctx, ScheduleError
from .trace import BlockRV

# the handles `compute_at` reads as "leave it at the root" and "inline it" (TVM's marks)
COMPUTE_ROOT = LoopRV()
COMPUTE_INLINE = LoopRV()


def _legal(fn: Any, *args: Any) -> bool:
    try:
        fn(*args)
    except ScheduleError:
        return False
    return True


def _common_depth(chains: list[list[Any]]) -> int:
    depth = 0
    while all(len(c) > depth and c[depth] is chains[0][depth] for c in chains):
        depth += 1
    return depth


def _last_reduction_pos(consumer: Any, loops: list[Any]) -> int:
    """The position of the innermost loop feeding a reduction iterator of `consumer`."""
    block = consumer.block
    reduce_vars: set[Any] = set()
    for iv, value in zip(block.iter_vars, consumer.iter_values):
        if iv.iter_type is not IterType.SPATIAL:
            reduce_vars |= {id(v) for v in free_vars(value)}
    last = -1
    for pos, lp in enumerate(loops):
        if id(lp.loop_var) in reduce_vars:
            last = pos
    return last


def candidates(ctx: Ctx, block: BlockRV) -> list[tuple[int, LoopRV]]:
    """The (location index, loop handle) pairs `block` may be computed at."""
    out: list[tuple[int, LoopRV]] = []
    if _legal(compute.compute_inline, ctx, block):
        out.append((-2, COMPUTE_INLINE))
    out.append((-1, COMPUTE_ROOT))
    path = ctx.block_path(block)
    users = query.consumers(ctx, path)
    if not users:
        return out
    chains = [tree.loops_above(ctx.block_path(ctx.block_rv(u))) for u in users]
    count = _common_depth(chains)
    last_reduction = _last_reduction_pos(users[0], chains[0])
    if 0 <= last_reduction < count:
        count = last_reduction + 1
    for pos, lp in enumerate(chains[0][:count]):
        if isinstance(lp.extent, IntImm) and lp.extent.value == 1:
            continue
        rv = ctx.loop_rv(lp)
        if _legal(compute.compute_at, ctx, block, rv, False):
            out.append((pos, rv))
    return out
