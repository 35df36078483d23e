"""Primitives that regroup what is already there: reorder_block_iter_var (a block's iter vars
in a new order) and merge (sibling loop nests of equal extents become one nest).

Each takes a `Ctx` and returns `(new PrimFunc, outputs)`; preconditions raise ScheduleError.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import IntImm, Var
from ..functor import simplify, substitute
from ..stmt import BlockRealize, For, ForKind, SeqStmt, Stmt, seq
from . import tree
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV


def reorder_block_iter_var(ctx: Ctx, rv: BlockRV, new_order: list[int]) -> tuple[Any, None]:
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    n = len(br.block.iter_vars)
    if sorted(new_order) != list(range(n)):
        raise ScheduleError(f"reorder_block_iter_var: {list(new_order)} is not a permutation "
                            f"of the {n} iter vars of block {br.block.name!r}")
    block = dataclasses.replace(br.block, iter_vars=tuple(br.block.iter_vars[k]
                                                          for k in new_order))
    new = dataclasses.replace(br, block=block,
                              iter_values=tuple(br.iter_values[k] for k in new_order))
    return ctx.func.with_body(tree.replace(path, new)), None


def _chain(path: tree.Path, start: int, what: str) -> list[For]:
    """The loops from `path[start]` down to the end of `path`, each the only child of the one
    above it."""
    chain = path[start:]
    for k, node in enumerate(chain):
        if not isinstance(node, For):
            raise ScheduleError(f"{what}: only loops may lie between the merged loops and "
                                f"their common ancestor")
        if k + 1 < len(chain) and node.body is not chain[k + 1]:
            raise ScheduleError(f"{what}: loop {node.loop_var.name!r} holds more than the "
                                f"loop being merged")
    return chain  # type: ignore[return-value]


def merge(ctx: Ctx, rvs: list[LoopRV]) -> tuple[Any, LoopRV]:
    what = "merge"
    if len(rvs) < 2:
        raise ScheduleError(f"{what}: needs at least two loops, got {len(rvs)}")
    paths = [ctx.loop_path(rv) for rv in rvs]
    common = 0
    while all(len(p) > common + 1 and p[common] is paths[0][common] for p in paths):
        common += 1
    lca = paths[0][common - 1] if common else None
    if not isinstance(lca, SeqStmt):
        raise ScheduleError(f"{what}: the loops must be in sibling nests of one statement list")
    chains = [_chain(p, common, what) for p in paths]
    depth = len(chains[0])
    for ch in chains:
        if len(ch) != depth:
            raise ScheduleError(f"{what}: loop {ch[-1].loop_var.name!r} is nested {len(ch)} "
                                f"deep under the common ancestor, the first loop {depth}")
        for a, b in zip(chains[0], ch):
            if not _same_range(a, b):
                raise ScheduleError(f"{what}: loops {a.loop_var.name!r} and {b.loop_var.name!r} "
                                    f"differ in range, kind or annotations")
    merged_vars = [Var(f"{lp.loop_var.name}_m", lp.loop_var.dtype) for lp in chains[0]]
    bodies = []
    for ch in chains:
        vmap = {lp.loop_var: v for lp, v in zip(ch, merged_vars)}
        bodies.append(substitute(ch[-1].body, vmap))
    node: Stmt = seq(bodies)
    for lp, var in reversed(list(zip(chains[0], merged_vars))):
        node = For(var, lp.min, lp.extent, lp.kind, node)
    heads = [ch[0] for ch in chains]
    items: list[Stmt] = []
    for child in lca.seq:
        if child is heads[0]:
            items.append(node)
        elif not any(child is h for h in heads):
            items.append(child)
    body = tree.replace(paths[0][:common], seq(items))
    return ctx.func.with_body(body), LoopRV(merged_vars[-1], ctx.func_name)


def _same_range(a: For, b: For) -> bool:
    ea, eb = simplify(a.extent), simplify(b.extent)
    zero = isinstance(simplify(a.min), IntImm) and simplify(a.min).value == 0
    return (zero and isinstance(simplify(b.min), IntImm) and simplify(b.min).value == 0
            and isinstance(ea, IntImm) and isinstance(eb, IntImm) and ea.value == eb.value
            and a.kind is ForKind.SERIAL and b.kind is ForKind.SERIAL
            and not a.annotations and not b.annotations)
