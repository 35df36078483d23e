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
from ..functor import Mutator, Visitor, simplify, substitute
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
    if any(isinstance(s, (Block, BlockRealize)) for s in path[at:-1]):
        raise ScheduleError(f"decompose_padding: loop {loop.loop_var.name!r} is outside the "
                            f"scope of block {name!r}")
    # the fill nest copies the loops on the way to the block (siblings under them stay
    # behind, as when TVM lifts the fill out); loops holding only the block may shrink
    nest = [s for s in path[at:-1] if isinstance(s, For)]
    top = max(tree.exclusive_top(path), at)
    exclusive = [s for s in path[top:-1] if isinstance(s, For)]
    if _always_inside(br, cond):
        raise ScheduleError(f"decompose_padding: the condition of block {name!r} holds on its "
                            f"whole domain: there is no padding to decompose")
    # a unit loop outside the decomposed nest binds as 0, as TVM's bindings simplify
    unit = {lp.loop_var: IntImm(lp.loop_var.dtype, 0) for lp in tree.loops_above(path)
            if lp not in nest and getattr(simplify(lp.extent), "value", None) == 1
            and getattr(simplify(lp.min), "value", None) == 0}
    fill = _fill_nest(br, store, pad, nest, unit)
    copy = tree.replace(path[at:top + 1], _copy_nest(br, store, cond, inside, exclusive, unit))
    body = tree.replace(path[:at + 1], seq([fill, copy]))
    return ctx.func.with_body(body), BlockRV(f"{name}_pad_const", ctx.func_name)


def _fill_nest(br: BlockRealize, store: BufferStore, pad: PrimExpr, nest: list[For],
               unit: dict) -> Stmt:
    fresh = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in nest}
    ivars = {iv.var: Var(iv.var.name, iv.var.dtype) for iv in br.block.iter_vars}
    block = Block(f"{br.block.name}_pad_const",
                  tuple(dataclasses.replace(iv, var=ivars[iv.var]) for iv in br.block.iter_vars),
                  BufferStore(store.buffer, pad, tuple(substitute(store.indices, ivars))))
    node: Stmt = BlockRealize(tuple(substitute(br.iter_values, {**fresh, **unit})),
                              substitute(br.predicate, {**fresh, **unit}), block)
    for lp in reversed(nest):
        node = dataclasses.replace(lp, loop_var=fresh[lp.loop_var], body=node)
    return node


def _bounds(cond: PrimExpr, ivars: set) -> tuple[dict, dict, list[PrimExpr]]:
    """`cond`'s constant bounds on iter vars (lo inclusive, hi exclusive) and its other terms."""
    lo: dict[Var, int] = {}
    hi: dict[Var, int] = {}
    rest = []
    for term in _conjuncts(cond):
        b = _bound(term)
        if b is None or b[0] not in ivars:
            rest.append(term)
            continue
        v, kind, c = b
        if kind == "lo":
            lo[v] = max(lo.get(v, c), c)
        else:
            hi[v] = min(hi.get(v, c), c)
    return lo, hi, rest


class _FoldOffsets(Mutator):
    """`(v + 3) - 3` back to `v` (and `(v + 3) - 1` to `v + 2`): the body gets the lower
    bound added back where the old index subtracted it."""

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        e = self.generic_visit(e)
        if (e.op is BinaryOp.SUB and isinstance(e.b, IntImm) and isinstance(e.a, BinOp)
                and e.a.op is BinaryOp.ADD and isinstance(e.a.b, IntImm)):
            left = e.a.b.value - e.b.value
            if left == 0:
                return e.a.a
            op = BinaryOp.ADD if left > 0 else BinaryOp.SUB
            return BinOp(op, e.a.a, IntImm(e.b.dtype, abs(left)))
        return e


def _always_inside(br: BlockRealize, cond: PrimExpr) -> bool:
    """Does every bound in `cond` cover its iter var's whole domain (and nothing else)?"""
    lo, hi, rest = _bounds(cond, {iv.var for iv in br.block.iter_vars})
    if rest:
        return False
    for iv in br.block.iter_vars:
        dom = simplify(iv.dom.extent)
        if iv.var in lo and lo[iv.var] > 0:
            return False
        if iv.var in hi and not (isinstance(dom, IntImm) and hi[iv.var] >= dom.value):
            return False
    return True


def _and(terms: list[PrimExpr]) -> PrimExpr:
    out: PrimExpr | None = None
    for t in terms:
        if isinstance(t, IntImm) and t.value:
            continue
        out = t if out is None else BinOp(BinaryOp.AND, out, t)
    return IntImm("bool", 1) if out is None else out


def _copy_nest(br: BlockRealize, store: BufferStore, cond: PrimExpr, inside: PrimExpr,
               nest: list[For], unit: dict) -> Stmt:
    """The block storing `inside` where `cond` holds. As TVM does it, each bounded iter var
    gets the bounded domain, starting at 0 (the body adds the lower bound back); a loop bound
    straight to it shrinks to match, any other binding is offset and guarded by a predicate."""
    loops = {lp.loop_var: lp for lp in nest}
    lo, hi, rest = _bounds(cond, {iv.var for iv in br.block.iter_vars})
    ivs, values, body_map, guards, new_ext = [], [], {}, [], {}
    for iv, v in zip(br.block.iter_vars, br.iter_values):
        v = substitute(v, unit)
        dom = simplify(iv.dom.extent)
        if (iv.var not in lo and iv.var not in hi) or not isinstance(dom, IntImm):
            ivs.append(iv)
            values.append(v)
            continue
        low, high = max(lo.get(iv.var, 0), 0), min(hi.get(iv.var, dom.value), dom.value)
        dt = iv.var.dtype
        new = dataclasses.replace(iv, var=Var(iv.var.name, dt), dom=dataclasses.replace(
            iv.dom, extent=IntImm(dom.dtype, max(high - low, 0))))
        ivs.append(new)
        body_map[iv.var] = new.var + IntImm(dt, low) if low else new.var
        lp = loops.get(v) if isinstance(v, Var) else None
        if lp is not None and getattr(simplify(lp.extent), "value", None) == dom.value \
                and getattr(simplify(lp.min), "value", None) == 0:
            new_ext[v] = max(high - low, 0)
            values.append(v)
            continue
        values.append(BinOp(BinaryOp.SUB, v, IntImm(dt, low)) if low else v)
        if low:
            guards.append(BinOp(BinaryOp.GE, v, IntImm(dt, low)))
        if high < dom.value:
            guards.append(BinOp(BinaryOp.LT, v, IntImm(dt, high)))
    ivmap = {iv.var: v for iv, v in zip(br.block.iter_vars, br.iter_values)}
    pred = _and(guards + _conjuncts(substitute(br.predicate, unit))
                + [substitute(t, {**ivmap, **unit}) for t in rest])
    fold = _FoldOffsets()
    new_store = BufferStore(store.buffer, fold.visit(substitute(inside, body_map)),
                            tuple(fold.visit(substitute(i, body_map)) for i in store.indices))
    block = dataclasses.replace(br.block, iter_vars=tuple(ivs), body=new_store,
                                reads=(), writes=())
    node: Stmt = BlockRealize(tuple(values), pred, block)
    for lp in reversed(nest):
        if lp.loop_var in new_ext:
            lp = dataclasses.replace(lp, extent=IntImm(lp.extent.dtype, new_ext[lp.loop_var]))
        node = dataclasses.replace(lp, body=node)
    return node
