"""Primitives that regroup what is already there: reorder_block_iter_var (a block's iter vars
in a new order) and merge (sibling loop nests of equal extents become one nest).

Each takes a `Ctx` and returns `(new PrimFunc, outputs)`; preconditions raise ScheduleError.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import IntImm, Var
from ..functor import simplify, substitute
from ..stmt import BlockRealize, For, ForKind, Range, SeqStmt, Stmt, seq
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


def _partition_sizes(loop: For, factors: list[Any]) -> list[int]:
    name = loop.loop_var.name
    ext = simplify(loop.extent)
    if not isinstance(ext, IntImm):
        raise ScheduleError(f"loop_partition: loop {name!r} has no constant extent")
    sizes = [None if f is None else int(f.value if isinstance(f, IntImm) else f)
             for f in factors]
    if sizes.count(None) > 1 or any(s is not None and s <= 0 for s in sizes):
        raise ScheduleError(f"loop_partition of loop {name!r}: factors must be positive with "
                            f"at most one None, got {factors}")
    known = sum(s for s in sizes if s is not None)
    if None in sizes:
        sizes[sizes.index(None)] = ext.value - known
    elif known < ext.value:  # as TVM: a last part takes what the factors leave
        sizes.append(ext.value - known)
    if sum(sizes) != ext.value or min(sizes) <= 0:  # type: ignore[type-var, arg-type]
        raise ScheduleError(f"loop_partition of loop {name!r}: factors {factors} do not "
                            f"partition its {ext.value} iterations")
    return sizes  # type: ignore[return-value]


class _RenameBlocks:
    """Every block under a statement gets a suffix (each partition holds its own copies); an
    iter var bound to the partition's loop var gets the partition's range, as in TVM."""

    def __init__(self, suffix: str, var: Var, dom: Range) -> None:
        self.suffix, self.var, self.dom = suffix, var, dom

    def __call__(self, s: Stmt) -> Stmt:
        if isinstance(s, BlockRealize):
            blk = s.block
            fresh = {iv.var: Var(iv.var.name, iv.var.dtype) for iv in blk.iter_vars}
            ivs = tuple(dataclasses.replace(iv, var=fresh[iv.var],
                                            dom=self.dom if v is self.var else iv.dom)
                        for iv, v in zip(blk.iter_vars, s.iter_values))
            block = dataclasses.replace(
                blk, name=f"{blk.name}_{self.suffix}", iter_vars=ivs,
                body=self(substitute(blk.body, fresh)),
                init=substitute(blk.init, fresh) if blk.init is not None else None,
                reads=(), writes=())  # TVM infers each copy's regions anew
            return dataclasses.replace(s, block=block)
        out = s
        for child in tree.children(s):
            out = tree._replace_child(out, child, self(child))  # type: ignore[assignment]
        return out


def _fresh_definitions(stmt: Any) -> Any:
    """`stmt` with every loop var and block iter var it binds replaced by a new Var."""
    from ..stmt import Block as _Block

    fresh: dict[Var, Var] = {}
    for p in tree.walk(stmt):
        node = p[-1]
        bound = [node.loop_var] if isinstance(node, For) else (
            [iv.var for iv in node.iter_vars] if isinstance(node, _Block) else [])
        for v in bound:
            fresh.setdefault(v, Var(v.name, v.dtype))
    return substitute(stmt, fresh)


def loop_partition(ctx: Ctx, rv: LoopRV, factors: list[Any]) -> tuple[Any, list[LoopRV]]:
    """The loop's range cut into consecutive parts, each a loop of its own inside an opaque
    "<block>_<var><k>_partition" block, all inside "<block>_<var>_common" (TVM's form)."""
    from ..stmt import Block

    from .loops import _check_plain

    path = ctx.loop_path(rv)
    loop: For = path[-1]  # type: ignore[assignment]
    _check_plain(loop, "loop_partition")
    sizes = _partition_sizes(loop, factors)
    blocks = tree.blocks_under(loop)
    if not blocks:
        raise ScheduleError(f"loop_partition: loop {loop.loop_var.name!r} holds no block")
    first, name = blocks[0].block.name, loop.loop_var.name
    true = IntImm("bool", 1)
    parts, rvs, start = [], [], 0
    for k, size in enumerate(sizes):
        var = Var(f"{name}{k}", loop.loop_var.dtype)
        dom = Range(IntImm(var.dtype, start), IntImm(var.dtype, size))
        body = _RenameBlocks(var.name, var, dom)(substitute(loop.body, {loop.loop_var: var}))
        if k:
            body = _fresh_definitions(body)  # each copy binds its own loop and iter vars
        part = dataclasses.replace(loop, loop_var=var, body=body,
                                   min=IntImm(var.dtype, start), extent=IntImm(var.dtype, size))
        parts.append(BlockRealize((), true, Block(f"{first}_{var.name}_partition", (), part)))
        rvs.append(LoopRV(var, ctx.func_name))
        start += size
    common = BlockRealize((), true, Block(f"{first}_{name}_common", (), seq(parts)))
    return ctx.func.with_body(tree.replace(path, common)), rvs
