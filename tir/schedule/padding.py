"""`decompose_padding`: a block writing `T.if_then_else(cond, value, pad)` becomes two:

    y[vi] = T.if_then_else(6 <= vi and vi < 134, x[vi - 6], 0)        decompose at loop i
becomes
    for i in range(140): block "block_pad_const":  y[vi] = 0
    for i in range(128): block "block":            vi = i + 6;  y[vi] = x[vi - 6]

The fill block copies the loops from `loop` inward; the copy block runs only where `cond`
holds: a bound on an iter var bound straight to one of those loops shrinks that loop, the rest
of `cond` becomes the block's predicate. The pad value must not read memory.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, Call, IntImm, PrimExpr, Var
from ..functor import Visitor, simplify, substitute
from ..stmt import Block, BlockRealize, BufferStore, For, Stmt, seq
from . import tree
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV


class _Loads(Visitor):
    def __init__(self) -> None:
        self.found = False

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.found = True


def _padding_parts(br: BlockRealize) -> tuple[BufferStore, PrimExpr, PrimExpr, PrimExpr]:
    name = br.block.name
    store = br.block.body
    value = getattr(store, "value", None)
    if (not isinstance(store, BufferStore) or br.block.init is not None
            or not isinstance(value, Call) or value.op != "tir.if_then_else"):
        raise ScheduleError(f"decompose_padding: block {name!r} is not a padding block (one "
                            f"store of T.if_then_else(cond, value, pad_value))")
    cond, inside, pad = value.args
    loads = _Loads()
    loads.visit(pad)
    if loads.found:
        raise ScheduleError(f"decompose_padding: the pad value of block {name!r} reads memory; "
                            f"it must be a constant")
    return store, cond, inside, pad


def _conjuncts(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.AND:
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _bound(term: PrimExpr) -> tuple[Var, str, int] | None:
    """`v >= c` / `v < c` (either side) as (v, "lo" | "hi", c) with hi exclusive."""
    if not isinstance(term, BinOp) or not term.op.is_comparison:
        return None
    a, b, op = simplify(term.a), simplify(term.b), term.op
    if isinstance(b, Var) and isinstance(a, IntImm):  # c < v  is  v > c
        flip = {BinaryOp.LT: BinaryOp.GT, BinaryOp.LE: BinaryOp.GE, BinaryOp.GT: BinaryOp.LT,
                BinaryOp.GE: BinaryOp.LE}
        a, b, op = b, a, flip.get(op, op)
    if not (isinstance(a, Var) and isinstance(b, IntImm)):
        return None
    c = b.value
    table = {BinaryOp.GE: ("lo", c), BinaryOp.GT: ("lo", c + 1), BinaryOp.LT: ("hi", c),
             BinaryOp.LE: ("hi", c + 1)}
    if op not in table:
        return None
    kind, value = table[op]
    return a, kind, value


def decompose_padding(ctx: Ctx, rv: BlockRV, loop_rv: LoopRV) -> tuple[Any, BlockRV]:
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    store, cond, inside, pad = _padding_parts(br)
    loop = ctx.loop(loop_rv)
    at = next((i for i, s in enumerate(path) if s is loop), None)
    if at is None:
        raise ScheduleError(f"decompose_padding: loop {loop.loop_var.name!r} is not above "
                            f"block {name!r}")
    nest = path[at:-1]
    if not all(isinstance(s, For) for s in nest) or any(
            s.body is not nxt for s, nxt in zip(nest, path[at + 1:])):
        raise ScheduleError(f"decompose_padding: the loops from {loop.loop_var.name!r} to block "
                            f"{name!r} must nest only it")
    fill = _fill_nest(br, store, pad, nest)
    copy = _copy_nest(br, store, cond, inside, nest)
    body = tree.replace(path[:at + 1], seq([fill, copy]))
    return ctx.func.with_body(body), BlockRV(f"{name}_pad_const", ctx.func_name)


def _fill_nest(br: BlockRealize, store: BufferStore, pad: PrimExpr, nest: list[For]) -> Stmt:
    fresh = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in nest}
    ivars = {iv.var: Var(iv.var.name, iv.var.dtype) for iv in br.block.iter_vars}
    block = Block(f"{br.block.name}_pad_const",
                  tuple(dataclasses.replace(iv, var=ivars[iv.var]) for iv in br.block.iter_vars),
                  BufferStore(store.buffer, pad, tuple(substitute(store.indices, ivars))))
    node: Stmt = BlockRealize(tuple(substitute(br.iter_values, fresh)),
                              substitute(br.predicate, fresh), block)
    for lp in reversed(nest):
        node = dataclasses.replace(lp, loop_var=fresh[lp.loop_var], body=node)
    return node


def _copy_nest(br: BlockRealize, store: BufferStore, cond: PrimExpr, inside: PrimExpr,
               nest: list[For]) -> Stmt:
    """The block storing `inside` where `cond` holds, loops shrunk to the bounds found."""
    direct = {v: iv.var for iv, v in zip(br.block.iter_vars, br.iter_values)
              if isinstance(v, Var) and any(v is lp.loop_var for lp in nest)}
    by_iv = {iv_var: loop_var for loop_var, iv_var in direct.items()}
    lo: dict[Var, int] = {}
    hi: dict[Var, int] = {}
    rest = []
    for term in _conjuncts(cond):
        b = _bound(term)
        if b is None or b[0] not in by_iv:
            rest.append(term)
            continue
        v, kind, c = b
        table = lo if kind == "lo" else hi
        table[v] = max(table.get(v, c), c) if kind == "lo" else min(table.get(v, c), c)
    shift: dict[Var, PrimExpr] = {}
    new_loops = []
    for lp in nest:
        iv_var = direct.get(lp.loop_var)
        ext = simplify(lp.extent)
        if iv_var is None or not isinstance(ext, IntImm) or (iv_var not in lo and iv_var not in hi):
            new_loops.append(lp)
            continue
        start, stop = lo.get(iv_var, 0), min(hi.get(iv_var, ext.value), ext.value)
        start = max(start, 0)
        new_loops.append(dataclasses.replace(lp, extent=IntImm(ext.dtype, max(stop - start, 0))))
        if start:
            shift[lp.loop_var] = lp.loop_var + IntImm(lp.loop_var.dtype, start)
    pred = br.predicate
    for term in rest:
        pred = term if isinstance(pred, IntImm) and pred.value else BinOp(BinaryOp.AND, pred, term)
    ivmap = {iv.var: v for iv, v in zip(br.block.iter_vars, br.iter_values)}
    pred = substitute(pred, ivmap)  # a predicate speaks of loop vars, not iter vars
    block = dataclasses.replace(br.block, body=dataclasses.replace(store, value=inside))
    node: Stmt = BlockRealize(tuple(simplify(substitute(v, shift)) for v in br.iter_values),
                              simplify(substitute(pred, shift)), block)
    for lp in reversed(new_loops):
        node = dataclasses.replace(lp, body=node)
    return node
