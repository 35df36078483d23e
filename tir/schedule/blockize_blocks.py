"""`blockize([b0, b1, ...])`: sibling loop nests, each holding one of the blocks, become the
body of one new outer block "outer_b0_b1_", as TVM does it.

Each block's bindings are divided over the loops inside its nest (as `blockize(loop)` does):
the outer parts become the outer block's iter vars, taken from the first block; every other
block must divide into the same outer iter vars (same count, extents and bindings), so they
all read them the same way. Inner iter vars are renamed `v_i`; without preserve_unit_iters an
inner iter var of extent 1 disappears (its value is its binding's, 0).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import constant_difference, int_value
from ..expr import IntImm, PrimExpr, Var
from ..functor import simplify, substitute
from ..stmt import Block, BlockRealize, For, IterVar, Range, SeqStmt, Stmt, seq
from . import tree
from .blockize import _drop_unit_loops, _split_binding
from .state import Ctx, ScheduleError
from .trace import BlockRV

_WHAT = "blockize"


def _common_parent(paths: list[tree.Path]) -> int:
    """The depth of the deepest node every path passes through."""
    depth = 0
    while all(len(p) > depth + 1 for p in paths) and \
            all(p[depth + 1] is paths[0][depth + 1] for p in paths):
        depth += 1
    return depth


def _subtrees(paths: list[tree.Path], depth: int, names: list[str]) -> tuple[list[Stmt], Any]:
    """The children of the common parent holding the blocks, in order, and the parent's
    statement list they sit in (the parent's body itself when it is one of them)."""
    parent = paths[0][depth]
    tops = [p[depth + 1] for p in paths]
    if isinstance(parent, SeqStmt):
        items = list(parent.seq)
        at = sorted(next(k for k, s in enumerate(items) if s is t) for t in tops)
        if len(set(at)) != len(at) or at != list(range(at[0], at[0] + len(at))):
            raise ScheduleError(f"{_WHAT}: blocks {names} must each sit in their own loop nest, "
                                f"side by side under one parent")
        return items[at[0]:at[-1] + 1], parent
    if len(tops) != 1:
        raise ScheduleError(f"{_WHAT}: blocks {names} must each sit in their own loop nest, "
                            f"side by side under one parent")
    return tops, parent


class _OuterIters:
    """The outer iter vars: made from the first block, matched by the others."""

    def __init__(self) -> None:
        self.ivs: list[IterVar] = []
        self.values: list[PrimExpr] = []
        self.made = False

    def var(self, k: int, iv: IterVar, extent: int, value: PrimExpr, name: str) -> Var:
        if not self.made:
            dt = iv.var.dtype
            v = Var(f"{iv.var.name}_o", dt)
            self.ivs.append(IterVar(v, Range(IntImm(dt, 0), IntImm(dt, extent)),
                                    iv.iter_type))
            self.values.append(value)
            return v
        have = self.ivs[k]
        if int_value(have.dom.extent) != extent or \
                constant_difference(self.values[k], value) != 0:
            raise ScheduleError(f"{_WHAT}: the outer part {value} (extent {extent}) of iter var "
                                f"{iv.var.name!r} of block {name!r} differs from the first "
                                f"block's {self.values[k]} (extent {have.dom.extent})")
        return have.var


def _inner(br: BlockRealize, path: tree.Path, depth: int, outer: _OuterIters,
           preserve_unit_iters: bool) -> Stmt:
    """The block's nest with its iter vars divided: outer parts read the outer iter vars."""
    name = br.block.name
    if not (isinstance(br.predicate, IntImm) and br.predicate.value):
        raise ScheduleError(f"{_WHAT}: block {name!r} has a predicate")
    nest = [s for s in path[depth + 1:-1] if isinstance(s, For)]
    if outer.made and len(outer.ivs) != len(br.block.iter_vars):
        raise ScheduleError(f"{_WHAT}: block {name!r} has {len(br.block.iter_vars)} iter vars, "
                            f"the first block {len(outer.ivs)}; the blocks must share their "
                            f"outer iter vars")
    ivs, values, vmap = [], [], {}
    for k, (iv, value) in enumerate(zip(br.block.iter_vars, br.iter_values)):
        out_val, in_val, extent = _split_binding(value, nest, name, _WHAT)
        dom = simplify(iv.dom.extent)
        if not isinstance(dom, IntImm) or dom.value % extent:
            raise ScheduleError(f"{_WHAT}: iter var {iv.var.name!r} of block {name!r} does not "
                                f"split evenly by the inner extent {extent}")
        n_out = dom.value // extent
        if not preserve_unit_iters:
            out_val = _drop_unit_loops(out_val, path[:depth + 1])
        v_out = outer.var(k, iv, n_out, out_val, name)
        dt = iv.var.dtype
        if extent == 1 and not preserve_unit_iters:
            inner: PrimExpr = _drop_unit_loops(in_val, path)
        else:
            inner = Var(f"{iv.var.name}_i", dt)
            ivs.append(IterVar(inner, Range(IntImm(dt, 0), IntImm(dt, extent)), iv.iter_type))
            values.append(in_val)
        vmap[iv.var] = inner if n_out == 1 else simplify(v_out * extent + inner)
    outer.made = True
    block = br.block
    new = dataclasses.replace(
        block, iter_vars=tuple(ivs), body=substitute(block.body, vmap),
        init=None if block.init is None else substitute(block.init, vmap), reads=(), writes=())
    return tree.replace(path[depth + 1:], BlockRealize(tuple(values), br.predicate, new))


def blockize_blocks(ctx: Ctx, rvs: list[BlockRV], preserve_unit_iters: bool = True
                    ) -> tuple[Any, BlockRV]:
    if not rvs:
        raise ScheduleError(f"{_WHAT}: no block to blockize")
    paths = [ctx.block_path(rv) for rv in rvs]
    names = [p[-1].block.name for p in paths]  # type: ignore[attr-defined]
    if len(set(names)) != len(names):
        raise ScheduleError(f"{_WHAT}: block {names[0]!r} is listed twice")
    depth = _common_parent(paths)
    tops, parent = _subtrees(paths, depth, names)
    for top in tops:
        inside = [br.block.name for br in tree.blocks_under(top)]
        if len(inside) != 1 or inside[0] not in names:
            raise ScheduleError(f"{_WHAT}: the loop nest of block {inside[0]!r} must hold one "
                                f"listed block, it holds {inside}")
    # the first listed block makes the outer iter vars; the nests keep their program order
    outer = _OuterIters()
    rebuilt = {id(p[depth + 1]): _inner(p[-1], p, depth, outer,  # type: ignore[arg-type]
                                        preserve_unit_iters) for p in paths}
    new_tops = [rebuilt[id(t)] for t in tops]
    name = "outer_" + "".join(f"{n}_" for n in names)
    block = Block(name, tuple(outer.ivs), seq(new_tops))
    realize = BlockRealize(tuple(outer.values), IntImm("bool", 1), block)
    if isinstance(parent, SeqStmt) and len(tops) < len(parent.seq):
        items = list(parent.seq)
        at = next(j for j, s in enumerate(items) if s is tops[0])
        items[at:at + len(tops)] = [realize]
        body = tree.replace(paths[0][:depth + 1], seq(items))
    else:
        body = tree.replace(paths[0][:depth + 1] if isinstance(parent, SeqStmt)
                            else paths[0][:depth + 2], realize)
    return ctx.func.with_body(body), BlockRV(name, ctx.func_name)
