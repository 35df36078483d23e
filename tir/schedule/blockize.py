"""`blockize(loop)`: the loop nest under `loop` becomes the body of a new outer block whose
iter vars are inferred from the inner block's bindings, as TVM does it:

    vi = i_0 * 16 + i_1      (blockize at i_1)
becomes
    with block("C_o"):  vi_o = T.axis.spatial(64, i_0)
        for i_1: with block("C"):  vi_i = T.axis.spatial(16, i_1)   ... vi_o * 16 + vi_i ...

A binding wholly inside the nest gets a unit outer iter var bound to 0; without
preserve_unit_iters, enclosing loops of extent 1 bind as their start (0), as in TVM. A
reduction block's init moves to the outer block, as a nest of its own over the spatial inner
loops ("C_init"). A subtree that is not one block under a perfect loop
nest becomes an opaque outer block (no iter vars). A list of blocks as the target is
blockize_blocks.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import affine
from ..expr import IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import simplify, substitute
from ..stmt import Block, BlockRealize, For, IterType, IterVar, Range, Stmt
from . import tree
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV


def _split_binding(value: PrimExpr, inner: list[For], name: str, what: str
                   ) -> tuple[PrimExpr, PrimExpr, int]:
    """`value` as outer * extent + inner, where inner covers [0, extent) densely over the
    `inner` loops: returns (outer binding, inner binding, inner extent)."""
    loops = {lp.loop_var: lp for lp in inner}
    form = affine(simplify(value), set(loops))
    if form is None:
        raise ScheduleError(f"{what}: the binding {value} of block {name!r} is not affine in "
                            f"the loops being blockized")
    used = sorted(form.coeffs.items(), key=lambda kv: kv[1])
    extent = 1
    for var, coeff in used:
        lp_ext = simplify(loops[var].extent)
        if coeff != extent or not isinstance(lp_ext, IntImm):
            raise ScheduleError(f"{what}: the binding {value} of block {name!r} does not cover "
                                f"a dense range of the loops being blockized")
        extent *= lp_ext.value
    inner_expr: PrimExpr = IntImm(value.dtype, 0)
    for var, coeff in reversed(used):  # outermost loop first, as TVM prints it
        term = var if coeff == 1 else var * coeff
        inner_expr = term if isinstance(inner_expr, IntImm) else inner_expr + term
    return _divide(form.base, extent, name, what), inner_expr, extent


def _divide(base: PrimExpr, extent: int, name: str, what: str) -> PrimExpr:
    if extent == 1:
        return simplify(base)
    form = affine(base, set(free_vars(base)))
    const = simplify(form.base) if form is not None else None
    if form is None or not isinstance(const, IntImm) or const.value % extent or any(
            c % extent for c in form.coeffs.values()):
        raise ScheduleError(f"{what}: the outer part {base} of a binding of block {name!r} is "
                            f"not a multiple of the inner extent {extent}")
    out: PrimExpr = IntImm(base.dtype, const.value // extent)
    for var, coeff in form.coeffs.items():
        c = coeff // extent
        term = var if c == 1 else var * c
        out = term if isinstance(out, IntImm) and out.value == 0 else out + term
    return out


def blockize(ctx: Ctx, loop_rv: LoopRV | list[BlockRV], preserve_unit_iters: bool = True
             ) -> tuple[Any, BlockRV]:
    if isinstance(loop_rv, (list, tuple)):
        from .blockize_blocks import blockize_blocks  # NOTE: it builds on this module

        return blockize_blocks(ctx, list(loop_rv), preserve_unit_iters)
    path = ctx.loop_path(loop_rv)
    loop: For = path[-1]  # type: ignore[assignment]
    inner_blocks = tree.blocks_under(loop)
    if not inner_blocks:
        raise ScheduleError(f"blockize: loop {loop.loop_var.name!r} holds no block")
    nest, node = [], loop
    while isinstance(node, For):
        nest.append(node)
        node = node.body
    if not isinstance(node, BlockRealize) or len(inner_blocks) != 1:
        return _opaque(ctx, path, loop, inner_blocks[0].block.name)
    br = node
    name = br.block.name
    if not (isinstance(br.predicate, IntImm) and br.predicate.value):
        raise ScheduleError(f"blockize: block {name!r} has a predicate")
    outer_ivs, outer_vals, inner_ivs, inner_vals, vmap = [], [], [], [], {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        outer, inner, extent = _split_binding(value, nest, name, "blockize")
        dom = simplify(iv.dom.extent)
        if not isinstance(dom, IntImm) or dom.value % extent:
            raise ScheduleError(f"blockize: iter var {iv.var.name!r} of block {name!r} does not "
                                f"split evenly by the inner extent {extent}")
        dt = iv.var.dtype
        if extent == 1:  # bound wholly outside the nest: an outer iter var alone
            v_out = Var(f"{iv.var.name}_o", dt)
            outer_ivs.append(dataclasses.replace(iv, var=v_out))
            outer_vals.append(outer if preserve_unit_iters else _drop_unit_loops(outer, path))
            vmap[iv.var] = v_out
            continue
        v_in = Var(f"{iv.var.name}_i", dt)
        inner_ivs.append(IterVar(v_in, Range(IntImm(dt, 0), IntImm(dt, extent)), iv.iter_type))
        inner_vals.append(inner)
        v_out = Var(f"{iv.var.name}_o", dt)
        outer_ivs.append(IterVar(v_out, Range(IntImm(dt, 0), IntImm(dt, dom.value // extent)),
                                 iv.iter_type))
        outer_vals.append(outer if preserve_unit_iters else _drop_unit_loops(outer, path))
        vmap[iv.var] = v_in if extent == dom.value else v_out * extent + v_in
    inner_block = dataclasses.replace(br.block, iter_vars=tuple(inner_ivs), init=None,
                                      body=substitute(br.block.body, vmap),
                                      reads=substitute(br.block.reads, vmap),
                                      writes=substitute(br.block.writes, vmap))
    body: Stmt = BlockRealize(tuple(inner_vals), br.predicate, inner_block)
    for lp in reversed(nest):
        body = dataclasses.replace(lp, body=body)
    init = None
    if br.block.init is not None:
        init = _init_nest(br, nest, inner_ivs, inner_vals, vmap)
    outer = Block(f"{name}_o", tuple(outer_ivs), body, init=init)
    realize = BlockRealize(tuple(outer_vals), IntImm("bool", 1), outer)
    return ctx.func.with_body(tree.replace(path, realize)), BlockRV(outer.name, ctx.func_name)


def _drop_unit_loops(value: PrimExpr, path: tree.Path) -> PrimExpr:
    """`value` with the vars of enclosing loops of extent 1 replaced by their start."""
    units = {s.loop_var: s.min for s in path if isinstance(s, For)
             and isinstance(simplify(s.extent), IntImm) and simplify(s.extent).value == 1}
    return simplify(substitute(value, units)) if units else value


def _init_nest(br: BlockRealize, nest: list[For], inner_ivs: list[IterVar],
               inner_vals: list[PrimExpr], vmap: dict[Var, PrimExpr]) -> Stmt:
    """The init as its own block over the inner loops that bind spatial iter vars."""
    spatial = [(iv, val) for iv, val in zip(inner_ivs, inner_vals)
               if iv.iter_type is IterType.SPATIAL]
    used = {v for _, val in spatial for v in free_vars(val)}
    loops = [lp for lp in nest if lp.loop_var in used]
    fresh = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in loops}
    ivs, init_map = [], {}
    for iv, _ in spatial:
        var = Var(f"{iv.var.name}_init", iv.var.dtype)
        ivs.append(dataclasses.replace(iv, var=var))
        init_map[iv.var] = var
    init_body = substitute(substitute(br.block.init, vmap), init_map)
    block = Block(f"{br.block.name}_init", tuple(ivs), init_body)
    node: Stmt = BlockRealize(tuple(substitute(val, fresh) for _, val in spatial),
                              IntImm("bool", 1), block)
    for lp in reversed(loops):
        node = For(fresh[lp.loop_var], lp.min, lp.extent, lp.kind, node, lp.thread_tag,
                   lp.annotations)
    return node


def _opaque(ctx: Ctx, path: tree.Path, loop: For, name: str) -> tuple[Any, BlockRV]:
    """An outer block with no iter vars around a subtree of several blocks."""
    block = Block(f"{name}_o", (), loop)
    realize = BlockRealize((), IntImm("bool", 1), block)
    return ctx.func.with_body(tree.replace(path, realize)), BlockRV(block.name, ctx.func_name)
