"""compute_at and reverse_compute_at: move a block under a loop of its consumer (producer),
computing there just the part that one iteration of the loop needs.

The moved block's iter-var windows come from iter_domain.py; this module checks TVM's
conditions (same scope, complete block, all consumers or producers under the loop, not an
output), rebuilds the block's loop nest with guards where a window may leave a domain, and
places it at the insertion point TVM's `index` names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, IntImm, PrimExpr, Var
from ..function import free_vars
from ..arith import bound, constant_difference
from ..functor import simplify, substitute
from ..stmt import BlockRealize, Buffer, For, ForKind, Stmt, seq
from . import iter_domain, tree
from .analysis import read_buffers, written_buffers
from .state import Ctx, ScheduleError, _direct_blocks
from .trace import BlockRV, LoopRV


def _cast(e: PrimExpr, dtype: str) -> PrimExpr:
    if e.dtype == dtype:
        return e
    return IntImm(dtype, e.value) if isinstance(e, IntImm) else e.astype(dtype)


def _outer_ranges(lpath: tree.Path) -> dict[Var, tuple[PrimExpr, int]]:
    return {s.loop_var: (s.min, s.extent.value) for s in lpath
            if isinstance(s, For) and isinstance(s.extent, IntImm)}


def _nest_vars(bpath: tree.Path) -> frozenset[Var]:
    """Loop vars of the nest a block is moved out of (they are gone after the move)."""
    return frozenset(lp.loop_var for lp in bpath[tree.exclusive_top(bpath):]
                     if isinstance(lp, For))


def _summands(e: PrimExpr) -> tuple[list[PrimExpr], int]:
    """`e` as its non-constant summands (in order) and the sum of its constant ones."""
    if isinstance(e, IntImm):
        return [], e.value
    if isinstance(e, BinOp) and e.op is BinaryOp.ADD:
        (a, ka), (b, kb) = _summands(e.a), _summands(e.b)
        return a + b, ka + kb
    if isinstance(e, BinOp) and e.op is BinaryOp.SUB and isinstance(e.b, IntImm):
        a, k = _summands(e.a)
        return a, k - e.b.value
    return [e], 0


def _compare(value: PrimExpr, op: BinaryOp, limit: int) -> PrimExpr:
    """`value op limit` with value's constants moved to the right, as TVM's simplifier
    writes a guard (`h * 8 - 1 + ax0 >= 0` is `h * 8 + ax0 >= 1`)."""
    terms, k = _summands(value)
    if not terms:
        return BinOp(op, value, IntImm(value.dtype, limit))
    lhs = terms[0]
    for t in terms[1:]:
        lhs = BinOp(BinaryOp.ADD, lhs, t)
    return BinOp(op, lhs, IntImm(value.dtype, limit - k))


def _guards(value: PrimExpr, dom: Any, ranges: dict[Var, tuple[PrimExpr, int]],
            extents: dict[Var, PrimExpr]) -> list[PrimExpr]:
    """The conditions keeping `value` in the iter var's domain, those that can fail."""
    end = simplify(dom.min + dom.extent)
    w = bound(value, ranges)
    first = w and simplify(w[0])
    if isinstance(first, IntImm):
        low_ok = isinstance(dom.min, IntImm) and first.value >= dom.min.value
        high = IntImm(first.dtype, first.value + w[1] - 1)  # type: ignore[index]
    else:
        span = _symbolic_span(value, extents)
        low_ok = span is not None and isinstance(dom.min, IntImm) and span[0] >= dom.min.value
        high = span[1] if span is not None else None  # type: ignore[assignment]
    gap = None if high is None else constant_difference(end, high)
    out = []
    if not low_ok:
        out.append(_bound_guard(value, BinaryOp.GE, dom.min))
    if gap is None or gap < 1:
        out.append(_bound_guard(value, BinaryOp.LT, end))
    return out


def _bound_guard(value: PrimExpr, op: BinaryOp, limit: PrimExpr) -> PrimExpr:
    if isinstance(limit, IntImm):
        return _compare(value, op, limit.value)
    return BinOp(op, value, limit)


def _symbolic_span(value: PrimExpr, extents: dict[Var, PrimExpr]
                   ) -> tuple[int, PrimExpr] | None:
    """(least value, largest value) of a sum of loop vars, `x // d` and `x % d` over loops
    with symbolic extents, as TVM's analyzer proves `fused // n < 32` for `fused < n * 32`."""
    terms, k = _summands(value)
    low, high = k, IntImm(value.dtype, k)
    for t in terms:
        top = _term_top(t, extents)
        if top is None:
            return None
        high = simplify(high + top)
    return low, high


def _term_top(t: PrimExpr, extents: dict[Var, PrimExpr]) -> PrimExpr | None:
    one = IntImm(t.dtype, 1)
    if isinstance(t, Var) and t in extents:
        return simplify(extents[t] - one)
    if not (isinstance(t, BinOp) and isinstance(t.a, Var) and t.a in extents):
        return None
    if t.op is BinaryOp.MUL and isinstance(t.b, IntImm) and t.b.value > 0:
        return simplify((extents[t.a] - one) * t.b)
    if t.op is BinaryOp.FLOORMOD:
        return simplify(t.b - one)
    if t.op is BinaryOp.FLOORDIV:
        ext = extents[t.a]
        if isinstance(ext, BinOp) and ext.op is BinaryOp.MUL:
            for d, k in ((ext.a, ext.b), (ext.b, ext.a)):
                if d == t.b and isinstance(k, IntImm):
                    return IntImm(t.dtype, k.value - 1)
    return None


def _regenerate(br: BlockRealize, dims: dict[Var, tuple[PrimExpr, int]],
                preserve_unit_loops: bool, outer: dict[Var, tuple[PrimExpr, int]],
                outer_extents: dict[Var, PrimExpr], stale: frozenset[Var] = frozenset()
                ) -> Stmt:
    """A fresh loop nest running `br`'s block over `dims` (iter var -> window); other iter
    vars sweep their whole domain. Guards go into the predicate where a window may leave
    its domain (a non-divisible tile, a halo), as TVM adds them."""
    loops: list[tuple[Var, PrimExpr]] = []
    values: list[PrimExpr] = []
    ranges = dict(outer)
    for iv in br.block.iter_vars:
        lo, ext = dims.get(iv.var, (iv.dom.min, iv.dom.extent))
        ext = simplify(_cast(IntImm("int32", ext) if isinstance(ext, int) else ext,
                             iv.var.dtype))
        dtype = iv.var.dtype
        if isinstance(ext, IntImm) and ext.value == 1 and not preserve_unit_loops:
            values.append(_cast(simplify(lo), dtype))
            continue
        ax = Var(f"ax{len(loops)}", dtype)
        loops.append((ax, ext))
        if isinstance(ext, IntImm):
            ranges[ax] = (IntImm(dtype, 0), ext.value)
        values.append(simplify(_cast(lo, dtype) + ax))
    extents = {**outer_extents, **{ax: ext for ax, ext in loops}}
    # NOTE: a loop of extent 1 is its start in a guard, as TVM's analyzer writes it
    units = {ax: IntImm(ax.dtype, 0) for ax, ext in loops
             if isinstance(ext, IntImm) and ext.value == 1}
    guards = [g for iv, v in zip(br.block.iter_vars, values) if iv.var in dims
              for g in _guards(substitute(v, units), iv.dom, ranges, extents)]
    pred = br.predicate
    if any(v in stale for v in free_vars(pred)):
        pred = IntImm("bool", 1)  # a split's guard over the old loops: `guards` re-clip it
    for g in guards:
        pred = g if isinstance(pred, IntImm) and pred.value else BinOp(BinaryOp.AND, pred, g)
    body: Stmt = BlockRealize(tuple(values), pred, br.block)
    for ax, ext in reversed(loops):
        body = For(ax, IntImm(ax.dtype, 0), ext, ForKind.SERIAL, body)
    return body


def _remove_nest(body: Stmt, block_name: str) -> Stmt:
    path = tree.block_path(body, block_name)
    assert path is not None
    return tree.replace(path[:tree.exclusive_top(path) + 1], None)


def _check_placement(bpath: tree.Path, lpath: tree.Path, what: str) -> None:
    block, loop = bpath[-1], lpath[-1]
    if any(s is loop for s in bpath):
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is already an ancestor of "
                            f"block {block.block.name!r}")
    block_scope = next((s for s in reversed(bpath[:-1]) if isinstance(s, BlockRealize)), None)
    loop_scope = next((s for s in reversed(lpath) if isinstance(s, BlockRealize)), None)
    if block_scope is not loop_scope:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is not in the same block "
                            f"scope as block {block.block.name!r}")


def _scope_blocks(ctx: Ctx, bpath: tree.Path) -> list[tuple[BlockRealize, tree.Path]]:
    """The blocks of the moved block's scope (not nested in another block), with paths."""
    scope = next((s for s in reversed(bpath[:-1]) if isinstance(s, BlockRealize)), None)
    node = scope.block.body if scope is not None else ctx.func.body
    out = []
    for br in _direct_blocks(node):
        out.append((br, tree.find(ctx.func.body, lambda s, br=br: s is br)))
    return out  # type: ignore[return-value]


def _touches(br: BlockRealize, buf: Buffer, reads: bool) -> bool:
    return bool(iter_domain.block_region(br, buf, reads))


def _under(path: tree.Path, loop: For) -> bool:
    return any(s is loop for s in path)


def _position(root: Stmt, node: Stmt) -> int:
    for k, path in enumerate(tree.walk(root)):
        if path[-1] is node:
            return k
    return -1


def _insert(ctx_body: Stmt, loop: For, block: BlockRealize, nest: Stmt, index: int,
            what: str) -> Stmt:
    """`loop` (in `ctx_body`) with `nest` placed among its children at TVM's `index`: -1 the
    last point before a child reading what `block` writes, -2 the first point after a child
    writing what it reads, else that child position (which must lie between the two)."""
    lpath = tree.loop_path(ctx_body, loop.loop_var)
    assert lpath is not None
    loop = lpath[-1]  # type: ignore[assignment]
    kids = list(loop.body.seq) if hasattr(loop.body, "seq") else [loop.body]
    reads, writes = read_buffers(block.block), written_buffers(block.block)

    def has(kid: Stmt, bufs: list[Buffer], as_reads: bool) -> bool:
        return any(_touches(p[-1], b, as_reads) for p in tree.find_all(
            kid, lambda s: isinstance(s, BlockRealize)) for b in bufs)

    lo = max((k + 1 for k, kid in enumerate(kids) if has(kid, reads, False)), default=0)
    hi = min((k for k, kid in enumerate(kids) if has(kid, writes, True)), default=len(kids))
    at = hi if index == -1 else lo if index == -2 else index
    if not (lo <= at <= hi) or index < -2:
        raise ScheduleError(f"{what}: index {index} is not a valid place for block "
                            f"{block.block.name!r} under loop {loop.loop_var.name!r}; the "
                            f"valid ones are {lo}..{hi} (or -1, -2)")
    new_loop = dataclasses.replace(loop, body=seq(kids[:at] + [nest] + kids[at:]))
    return tree.replace(lpath, new_loop)


def compute_at(ctx: Ctx, block_rv: BlockRV, loop_rv: LoopRV, preserve_unit_loops: bool = False,
               index: int = -1) -> tuple[Any, None]:
    what = "compute_at"
    bpath, lpath = ctx.block_path(block_rv), ctx.loop_path(loop_rv)
    _check_placement(bpath, lpath, what)
    producer: BlockRealize = bpath[-1]  # type: ignore[assignment]
    loop: For = lpath[-1]  # type: ignore[assignment]
    name = producer.block.name
    bufs = written_buffers(producer.block)
    if not bufs:
        raise ScheduleError(f"{what}: block {name!r} writes no buffer")
    scope = _scope_blocks(ctx, bpath)
    dims: dict[Var, tuple[PrimExpr, int]] = {}
    for buf in bufs:
        if any(b is buf for _, b in ctx.func.buffer_map):
            raise ScheduleError(f"{what}: block {name!r} is an output block (it writes "
                                f"{buf.name!r}, a parameter); it cannot move under a loop")
        others = [b.block.name for b, _ in scope if b is not producer and _touches(b, buf, False)]
        if others:
            raise ScheduleError(f"{what}: block {name!r} is not a complete block: block "
                                f"{others[0]!r} also writes {buf.name!r}")
        users = [(b, p) for b, p in scope if b is not producer and _touches(b, buf, True)]
        outside = [b.block.name for b, p in users if not _under(p, loop)]
        if outside:
            raise ScheduleError(f"{what} requires all the consumers of block {name!r} to be "
                                f"under loop {loop.loop_var.name!r}; block {outside[0]!r} "
                                f"outside it also reads {buf.name!r}")
        if not users:
            raise ScheduleError(f"{what}: no block under loop {loop.loop_var.name!r} reads "
                                f"{buf.name!r}, the buffer block {name!r} writes")
        if _position(ctx.func.body, producer) > _position(ctx.func.body, users[0][0]):
            raise ScheduleError(f"{what}: block {name!r} runs after its consumer "
                                f"{users[0][0].block.name!r}")
        needed = iter_domain.needed_region([p for _, p in users], loop, lpath, buf, reads=True)
        provided = iter_domain.block_region(producer, buf, reads=False)
        for v, w in iter_domain.solve(producer.block, provided, needed).items():
            dims.setdefault(v, w)
    return _move(ctx, bpath, lpath, dims, preserve_unit_loops, index, what), None


def reverse_compute_at(ctx: Ctx, block_rv: BlockRV, loop_rv: LoopRV,
                       preserve_unit_loops: bool = False, index: int = -1) -> tuple[Any, None]:
    what = "reverse_compute_at"
    bpath, lpath = ctx.block_path(block_rv), ctx.loop_path(loop_rv)
    _check_placement(bpath, lpath, what)
    consumer: BlockRealize = bpath[-1]  # type: ignore[assignment]
    loop: For = lpath[-1]  # type: ignore[assignment]
    name = consumer.block.name
    scope = _scope_blocks(ctx, bpath)
    dims: dict[Var, tuple[PrimExpr, int]] = {}
    found = False
    checks = []
    for buf in read_buffers(consumer.block):
        makers = [(b, p) for b, p in scope if b is not consumer and _touches(b, buf, False)]
        if not makers:
            continue
        outside = [b.block.name for b, p in makers if not _under(p, loop)]
        if outside:
            raise ScheduleError(f"{what} requires all the producers of block {name!r} to be "
                                f"under loop {loop.loop_var.name!r}; block {outside[0]!r} "
                                f"outside it writes {buf.name!r}, which it reads")
        if _position(ctx.func.body, consumer) < _position(ctx.func.body, makers[-1][0]):
            raise ScheduleError(f"{what}: block {name!r} runs before its producer "
                                f"{makers[-1][0].block.name!r}")
        found = True
        needed = iter_domain.needed_region([p for _, p in makers], loop, lpath, buf,
                                           reads=False)
        used = iter_domain.block_region(consumer, buf, reads=True)
        for v, w in iter_domain.solve(consumer.block, used, needed).items():
            dims[v] = iter_domain.intersect(dims[v], w) if v in dims else w
        checks.append((buf, used, needed))
    if not found:
        raise ScheduleError(f"{what}: no block under loop {loop.loop_var.name!r} writes a "
                            f"buffer that block {name!r} reads")
    for buf, used, needed in checks:
        _check_reads_produced(consumer, dims, buf, used, needed, lpath, what)
    return _move(ctx, bpath, lpath, dims, preserve_unit_loops, index, what), None


def _check_reads_produced(consumer: BlockRealize, dims: dict[Var, tuple[PrimExpr, int]],
                          buf: Buffer, used: list[Any], needed: list[Any], lpath: tree.Path,
                          what: str) -> None:
    """Over its new windows, does the consumer read only what one iteration produces? (Where
    the produced window is a whole dim there is nothing to check.)"""
    units = _unit_loops(lpath)
    ranges = {iv.var: dims[iv.var] if iv.var in dims else (iv.dom.min, iv.dom.extent.value)
              for iv in consumer.block.iter_vars if iv.var in dims
              or isinstance(iv.dom.extent, IntImm)}
    for region in used:
        for d, ((lo, ext), want) in enumerate(zip(region, needed)):
            if want is None or _whole(want, buf.shape[d]):
                continue
            got = iter_domain.window(lo, ranges) if lo is not None else None
            ok = got is not None and isinstance(simplify(ext), IntImm)
            if ok:
                start = constant_difference(simplify(substitute(got[0], units)),
                                            simplify(substitute(want[0], units)))
                last = got[1] + simplify(ext).value - 1
                ok = start is not None and start >= 0 and start + last <= want[1]
            if not ok:
                raise ScheduleError(f"{what}: cannot show that block {consumer.block.name!r}, "
                                    f"moved there, reads only the part of {buf.name!r} that "
                                    f"is produced in the same iteration (dim {d})")


def _whole(w: tuple[PrimExpr, int], dim: PrimExpr) -> bool:
    return isinstance(w[0], IntImm) and w[0].value == 0 and isinstance(dim, IntImm) \
        and w[1] >= dim.value


def _unit_loops(lpath: tree.Path) -> dict[Var, PrimExpr]:
    return {s.loop_var: s.min for s in lpath if isinstance(s, For)
            and isinstance(s.extent, IntImm) and s.extent.value == 1}


def _single_values(block: BlockRealize, dims: dict[Var, tuple[PrimExpr, int]],
                   lpath: tree.Path) -> dict[Var, tuple[PrimExpr, int]]:
    """Window starts see loops of extent 1 as their start, as TVM's analyzer binds them:
    `T.axis.spatial(1, 0)`, `ax0` rather than `i0_0 * 8 + ax0` under a unit loop `i0_0`."""
    units = _unit_loops(lpath)
    if not units:
        return dims
    return {v: (simplify(substitute(w[0], units)), w[1]) for v, w in dims.items()}


def _move(ctx: Ctx, bpath: tree.Path, lpath: tree.Path, dims: dict[Var, tuple[PrimExpr, int]],
          preserve_unit_loops: bool, index: int, what: str) -> Any:
    block: BlockRealize = bpath[-1]  # type: ignore[assignment]
    dims = _single_values(block, dims, lpath)
    extents = {s.loop_var: s.extent for s in lpath if isinstance(s, For)}
    nest = _regenerate(block, dims, preserve_unit_loops, _outer_ranges(lpath), extents,
                       _nest_vars(bpath))
    body = _remove_nest(ctx.func.body, block.block.name)
    return ctx.func.with_body(_insert(body, lpath[-1], block, nest, index, what))  # type: ignore
