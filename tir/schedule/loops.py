"""Loop primitives: split, fuse, reorder, parallel / vectorize / unroll / bind, annotate.

Each takes a `Ctx` and returns `(new PrimFunc, outputs)`; preconditions raise ScheduleError.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import affine
from ..expr import BinaryOp, BinOp, IntImm, PrimExpr, Var, const
from ..function import free_vars
from ..functor import post_order_visit, simplify, substitute
from ..stmt import BlockRealize, BufferStore, For, ForKind, IterType
from . import tree
from .located import LocatedScheduleError, label
from .state import Ctx, ScheduleError
from .trace import LoopRV


def _extent(loop: For) -> int | None:
    e = simplify(loop.extent)
    return e.value if isinstance(e, IntImm) else None


def _rebind(ctx: Ctx, path: tree.Path, new: Any) -> Any:
    return ctx.func.with_body(tree.replace(path, new))


def _add_predicate(body: Any, cond: PrimExpr) -> Any:
    """Every block realize under `body` runs only where `cond` holds (non-exact splits)."""

    def visit(s: Any) -> Any:
        if isinstance(s, BlockRealize):
            p = s.predicate
            pred = cond if isinstance(p, IntImm) and p.value else BinOp(BinaryOp.AND, p, cond)
            return dataclasses.replace(s, predicate=pred)
        kids = tree.children(s)
        out = s
        for k in kids:
            out = tree._replace_child(out, k, visit(k))
        return out

    return visit(body)


def split(ctx: Ctx, loop_rv: LoopRV, factors: list[Any]) -> tuple[Any, list[LoopRV]]:
    path = ctx.loop_path(loop_rv)
    loop: For = path[-1]  # type: ignore[assignment]
    name = loop.loop_var.name
    facs = [None if f is None else int(f.value if isinstance(f, IntImm) else f) for f in factors]
    if facs.count(None) > 1:
        raise ScheduleError(f"split of loop {name!r}: at most one factor may be None")
    if any(f is not None and f <= 0 for f in facs):
        raise ScheduleError(f"split of loop {name!r}: factors must be positive, got {factors}")
    extent = _extent(loop)
    known = 1
    for f in facs:
        known *= f or 1
    _check_plain(loop, "split")
    if None in facs and extent is None:  # a symbolic extent: the inferred factor is a ceil-div
        return _split_symbolic(ctx, path, loop, facs, known)
    if None in facs:
        facs[facs.index(None)] = -(-extent // known)  # type: ignore[operator]
    total = 1
    for f in facs:
        total *= f  # type: ignore[operator]
    if extent is not None and total < extent:
        raise ScheduleError(f"split of loop {name!r}: factors {facs} cover {total} iterations, "
                            f"fewer than its extent {extent}")
    dtype = loop.loop_var.dtype
    new_vars = [Var(f"{name}_{k}", dtype) for k in range(len(facs))]
    fused: PrimExpr = new_vars[0]
    for v, f in zip(new_vars[1:], facs[1:]):
        fused = fused * const(f, dtype) + v
    body = substitute(loop.body, {loop.loop_var: simplify(loop.min + fused)})
    if extent is None or total != extent:
        body = _add_predicate(body, BinOp(BinaryOp.LT, fused, loop.extent))
    for v, f in reversed(list(zip(new_vars, facs))):
        body = For(v, IntImm(dtype, 0), IntImm(dtype, f), ForKind.SERIAL, body)  # type: ignore
    return _rebind(ctx, path, body), [LoopRV(v, ctx.func_name) for v in new_vars]


def _split_symbolic(ctx: Ctx, path: tree.Path, loop: For, facs: list[int | None],
                    known: int) -> tuple[Any, list[LoopRV]]:
    """Split with one factor inferred from a symbolic extent; a predicate guards the tail."""
    dtype = loop.loop_var.dtype
    exact = _exact_quotient(loop.extent, known)
    inferred = exact if exact is not None else simplify(
        (loop.extent + const(known - 1, dtype)) // const(known, dtype))
    exts: list[PrimExpr] = [inferred if f is None else IntImm(dtype, f) for f in facs]
    new_vars = [Var(f"{loop.loop_var.name}_{k}", dtype) for k in range(len(facs))]
    fused: PrimExpr = new_vars[0]
    for v, e in zip(new_vars[1:], exts[1:]):
        fused = fused * e + v
    body = substitute(loop.body, {loop.loop_var: simplify(loop.min + fused)})
    if exact is None:  # `n * 32` split by 32 has no tail to guard
        body = _add_predicate(body, BinOp(BinaryOp.LT, fused, loop.extent))
    for v, e in reversed(list(zip(new_vars, exts))):
        body = For(v, IntImm(dtype, 0), e, ForKind.SERIAL, body)
    return _rebind(ctx, path, body), [LoopRV(v, ctx.func_name) for v in new_vars]


def _exact_quotient(extent: PrimExpr, k: int) -> PrimExpr | None:
    """`extent / k` when every coefficient and the constant of the (affine) extent are
    multiples of k (`n * 32` by 32 is n), else None."""
    form = affine(simplify(extent), set(free_vars(extent)))
    base = None if form is None else simplify(form.base)
    if form is None or not isinstance(base, IntImm) or base.value % k or \
            any(c % k for c in form.coeffs.values()):
        return None
    out: PrimExpr = IntImm(extent.dtype, base.value // k)
    for v, c in form.coeffs.items():
        term = v if c == k else v * const(c // k, extent.dtype)
        out = term if isinstance(out, IntImm) and out.value == 0 else out + term
    return simplify(out)


def _check_plain(loop: For, what: str) -> None:
    """split/fuse rewrite a loop's variable: TVM refuses bound or annotated loops."""
    if loop.kind is not ForKind.SERIAL:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is {loop.kind.name.lower()}, "
                            f"not serial")
    if loop.annotations:
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} carries annotations "
                            f"{[k for k, _ in loop.annotations]}")


def _chain(ctx: Ctx, rvs: tuple[LoopRV, ...], what: str, ordered: bool = False
           ) -> tuple[tree.Path, list[For]]:
    """The perfect nest from the outermost to the innermost of `rvs` (each loop's body is the
    next loop), as (path to the outermost, the loops of the nest). `ordered`: `rvs` must be
    given outermost first (fuse); else in any order (reorder)."""
    paths = [ctx.loop_path(rv) for rv in rvs]
    if len({id(p[-1]) for p in paths}) != len(paths):
        raise ScheduleError(f"{what}: a loop is given twice")
    for a, b in zip(paths, paths[1:]) if ordered else ():
        if b[:len(a)] != a:
            marked = [a[-1], b[-1]]
            raise LocatedScheduleError(
                what, f"The loops can't be fused because the outer loop "
                f"{label(marked, a[-1])} is not the parent of the inner loop "
                f"{label(marked, b[-1])}", ctx.func, ctx.func_name, marked)
    outer = min(paths, key=len)
    inner = max(paths, key=len)
    nest = [s for s in inner[len(outer) - 1:] if isinstance(s, For)]
    if inner[:len(outer)] != outer or any(p[-1] not in nest for p in paths):
        raise ScheduleError(f"{what}: loops {[rv.var.name for rv in rvs]} are not nested in "
                            f"one another")
    for a, b in zip(nest, nest[1:]):
        if a.body is not b:
            raise LocatedScheduleError(
                what, f"The loops are not in a chain because loop {a.loop_var.name!r} "
                f"({label([a], a)}) holds more than loop {b.loop_var.name!r}; the loops must be "
                f"perfectly nested", ctx.func, ctx.func_name, [a])
    return outer, nest


def fuse(ctx: Ctx, *rvs: LoopRV) -> tuple[Any, LoopRV]:
    if not rvs:
        raise ScheduleError("fuse needs at least one loop")
    path, nest = _chain(ctx, rvs, "fuse", ordered=True)
    if len(nest) != len(rvs):
        raise ScheduleError(f"fuse: the loops {[rv.var.name for rv in rvs]} must be adjacent")
    for i, lp in enumerate(nest):
        if not (isinstance(lp.min, IntImm) and lp.min.value == 0):
            raise ScheduleError(f"fuse: loop {lp.loop_var.name!r} does not start at 0")
        _check_plain(lp, "fuse")
        if set(free_vars(lp.extent)) & {o.loop_var for o in nest[:i]}:
            raise ScheduleError(f"fuse: the extent of loop {lp.loop_var.name!r} depends on an "
                                f"outer loop being fused")
    dtype = "int64" if any(lp.loop_var.dtype == "int64" for lp in nest) else "int32"
    fused = Var("_".join(lp.loop_var.name for lp in nest) + "_fused", dtype)
    vmap: dict[Var, PrimExpr] = {}
    inner: PrimExpr = const(1, dtype)
    for lp in reversed(nest):
        ext = lp.extent if lp.extent.dtype == dtype else simplify(lp.extent.astype(dtype))
        # TVM's form: the middle loops as (fused % (ext * inner)) // inner
        value = fused if lp is nest[0] else fused % simplify(inner * ext)
        if not _is_one(inner):
            value = value // inner
        vmap[lp.loop_var] = _retype(simplify(value), lp.loop_var.dtype)
        inner = simplify(inner * ext)
    body = substitute(nest[-1].body, vmap)
    new = For(fused, IntImm(dtype, 0), _fused_extent(nest, dtype), ForKind.SERIAL, body)
    return _rebind(ctx, path, new), LoopRV(fused, ctx.func_name)


def _fused_extent(nest: list[For], dtype: str) -> PrimExpr:
    """The product of the extents as TVM writes it: symbolic ones outer to inner, then the
    constant ones folded into one factor on the right (`n * 16384`)."""
    symbolic: PrimExpr | None = None
    constant = 1
    for lp in nest:
        ext = lp.extent if lp.extent.dtype == dtype else simplify(lp.extent.astype(dtype))
        if isinstance(ext, IntImm):
            constant *= ext.value
        else:
            symbolic = ext if symbolic is None else simplify(symbolic * ext)
    if symbolic is None:
        return IntImm(dtype, constant)
    return symbolic if constant == 1 else simplify(symbolic * const(constant, dtype))


def _is_one(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def _retype(e: PrimExpr, dtype: str) -> PrimExpr:
    return e if e.dtype == dtype else e.astype(dtype)


def reorder(ctx: Ctx, *rvs: LoopRV) -> tuple[Any, None]:
    path, nest = _chain(ctx, rvs, "reorder")
    given = [ctx.loop(rv) for rv in rvs]
    slots = [i for i, lp in enumerate(nest) if lp in given]
    order = list(nest)
    for slot, lp in zip(slots, given):
        order[slot] = lp
    for i, lp in enumerate(order):
        outer_vars = {o.loop_var for o in order[:i]}
        uses = set(free_vars(lp.min)) | set(free_vars(lp.extent))
        if uses & ({o.loop_var for o in nest} - outer_vars):
            raise ScheduleError(f"reorder: the range of loop {lp.loop_var.name!r} depends on a "
                                f"loop that would move inside it")
    for old, new in zip(nest, order):
        if old is not new:
            _check_not_mixed(new, "reorder")
    _check_covering(nest, "reorder")
    _check_linear(nest, "reorder")
    _check_predicate_fusions(ctx, nest, "reorder")
    body = nest[-1].body
    for lp in reversed(order):
        body = dataclasses.replace(lp, body=body)
    return _rebind(ctx, path, body), None


def _check_linear(nest: list[For], what: str) -> None:
    """The blocks under the reordered loops must bind their iter vars affinely in those loops
    (TVM refuses `vi = v0 * v0 + v1` when v0 moves): no product of two terms that both use
    them, no division by one."""
    moved = {lp.loop_var for lp in nest}
    for br in tree.blocks_under(nest[-1].body):
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            if _nonlinear_in(value, moved):
                raise ScheduleError(f"{what}: block {br.block.name!r} binds iter var "
                                    f"{iv.var.name!r} non-affinely in the loops being "
                                    f"reordered ({value})")


def _conjuncts(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.AND:
        return _conjuncts(e.a) + _conjuncts(e.b)
    return [e]


def _check_predicate_fusions(ctx: Ctx, nest: list[For], what: str) -> None:
    """A predicate bounding a sum of several loop vars (`i * 2097152 + j * 16384 + k < 100`)
    makes them one fused iterator; unless an iter var is bound to that same sum (a split's
    `i_0 * 16 + i_1 < 100` guard), TVM finds the bindings not affine and refuses to move the
    loops."""
    moved = {lp.loop_var for lp in nest}
    for br in tree.blocks_under(nest[-1].body):
        path = tree.block_path(ctx.func.body, br.block.name)
        loops = {lp.loop_var for lp in tree.loops_above(path)} if path else moved
        forms = [affine(simplify(v), loops) for v in br.iter_values]
        bound = [f.coeffs for f in forms if f is not None]
        for c in _conjuncts(br.predicate):
            if not (isinstance(c, BinOp) and c.op in (BinaryOp.LT, BinaryOp.LE)):
                continue
            form = affine(simplify(c.a), loops)
            if form is None or len(form.coeffs) < 2 or not set(form.coeffs) & moved:
                continue
            if form.coeffs not in bound:
                raise ScheduleError(f"{what}: the predicate {c} of block {br.block.name!r} "
                                    f"fuses loops no iter var is bound to; its bindings are "
                                    f"not affine")


def _check_not_mixed(loop: For, what: str) -> None:
    """A loop feeding both spatial and reduce iter vars of a block cannot move: its order is
    what makes the `T.init()` iteration come first for each output element."""
    for br in tree.blocks_under(loop.body):
        kinds = {iv.iter_type for iv, value in zip(br.block.iter_vars, br.iter_values)
                 if loop.loop_var in free_vars(value)}
        if IterType.SPATIAL in kinds and len(kinds) > 1:
            raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} binds both spatial and "
                                f"reduce iter vars of block {br.block.name!r}; it cannot move")
        if kinds - {IterType.SPATIAL, IterType.REDUCE}:
            raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} binds a scan or opaque "
                                f"iter var of block {br.block.name!r}; it cannot move")


def _check_covering(nest: list[For], what: str) -> None:
    """A block iter var bound only by loops of `nest` must be covered by them: fewer loop
    iterations than its domain (`vl = l * 16`) is a non-affine binding TVM refuses."""
    extents = {lp.loop_var: _extent(lp) for lp in nest}
    for br in tree.blocks_under(nest[-1].body):
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            used = set(free_vars(value))
            dom = iv.dom.extent
            if not used or not used <= extents.keys() or not isinstance(dom, IntImm):
                continue
            span = 1
            for v in used:
                span *= extents[v] or dom.value
            if span < dom.value:
                raise ScheduleError(f"{what}: block {br.block.name!r} binds iter var "
                                    f"{iv.var.name!r} non-affinely ({value})")


def _check_parallelizable_blocks(loop: For, what: str) -> None:
    """TVM's conditions on the blocks under a parallel/vectorized loop: affine bindings in
    the loops (not `vk = k * k // 2`), and a compact data flow (a reduction writes only
    elements named by its spatial iter vars, not `B[vk]` for a reduce var vk)."""
    loops = {p[-1].loop_var for p in tree.walk(loop) if isinstance(p[-1], For)}
    for br in tree.blocks_under(loop.body):
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            if _nonlinear_in(value, loops):
                raise ScheduleError(f"{what}: block {br.block.name!r} binds iter var "
                                    f"{iv.var.name!r} non-affinely ({value})")
        reduce_vars = {iv.var for iv in br.block.iter_vars if iv.iter_type is IterType.REDUCE}
        stores: list[BufferStore] = []
        post_order_visit(br.block.body, lambda n: stores.append(n)
                         if isinstance(n, BufferStore) else None)
        for st in stores:
            if any(set(free_vars(i)) & reduce_vars for i in st.indices):
                raise ScheduleError(f"{what}: block {br.block.name!r} writes "
                                    f"{st.buffer.name!r} at an element chosen by a reduce "
                                    f"iter var (not a compact data flow)")


def _nonlinear_in(e: Any, names: set[Var]) -> bool:
    """Whether `e` multiplies two terms that both use `names`, or divides by one."""
    if not isinstance(e, BinOp):
        return False

    def uses(x: PrimExpr) -> bool:
        return bool(set(free_vars(x)) & names)

    if e.op is BinaryOp.MUL and uses(e.a) and uses(e.b):
        return True
    if e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD, BinaryOp.DIV) and uses(e.b):
        return True
    return _nonlinear_in(e.a, names) or _nonlinear_in(e.b, names)


def _reduction_blocks(loop: For) -> list[str]:
    """Blocks under `loop` whose REDUCE iter vars are bound using the loop's variable."""
    out = []
    for br in tree.blocks_under(loop.body):
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            if iv.iter_type is not IterType.SPATIAL and loop.loop_var in free_vars(value):
                out.append(br.block.name)
                break
    return out


def _check_no_opaque_use(loop: For, what: str) -> None:
    """A block reading the loop's variable in its body (not through an iter var binding) hides
    its dependence on the loop: TVM refuses to parallelize or vectorize such a loop."""
    for br in tree.blocks_under(loop.body):
        if br.block.iter_vars:  # NOTE: only blocks without iter vars are checked
            continue
        used: list[bool] = []
        post_order_visit(br.block.body,
                         lambda n: used.append(True) if n is loop.loop_var else None)
        if used:
            raise ScheduleError(f"{what}: block {br.block.name!r} uses loop "
                                f"{loop.loop_var.name!r} directly (an opaque binding)")


def set_kind(ctx: Ctx, rv: LoopRV, kind: ForKind, thread: str | None = None
             ) -> tuple[Any, None]:
    path = ctx.loop_path(rv)
    loop: For = path[-1]  # type: ignore[assignment]
    # NOTE: a reduction loop may be bound to threads (a cross-thread reduction), as in TVM
    if kind in (ForKind.PARALLEL, ForKind.VECTORIZED):
        bad = _reduction_blocks(loop)
        if bad:
            what = {ForKind.PARALLEL: "parallel", ForKind.VECTORIZED: "vectorize"}[kind]
            raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is a reduction loop of "
                                f"block {bad[0]!r} (it binds a reduce iter var); only "
                                f"spatial loops can be {what}d")
    if kind in (ForKind.PARALLEL, ForKind.VECTORIZED):
        _check_no_opaque_use(loop, kind.name.lower())
        _check_parallelizable_blocks(loop, kind.name.lower())
    if kind is ForKind.THREAD_BINDING and thread and not thread.startswith("threadIdx"):
        bad = _reduction_blocks(loop)
        if bad:  # only threads of one block can combine partial sums
            raise ScheduleError(f"bind: loop {loop.loop_var.name!r} is a reduction loop of "
                                f"block {bad[0]!r}; a cross-thread reduction needs threadIdx, "
                                f"not {thread}")
    if kind is ForKind.VECTORIZED and _extent(loop) is None:
        raise ScheduleError(f"vectorize: loop {loop.loop_var.name!r} has no constant extent")
    new = dataclasses.replace(loop, kind=kind, thread_tag=thread)
    return _rebind(ctx, path, new), None


def annotate(ctx: Ctx, rv: Any, key: str, value: Any) -> tuple[Any, None]:
    from .trace import BlockRV

    if isinstance(rv, BlockRV):
        path = ctx.block_path(rv)
        br: BlockRealize = path[-1]  # type: ignore[assignment]
        ann = tuple((k, v) for k, v in br.block.annotations if k != key) + ((key, value),)
        new: Any = dataclasses.replace(br, block=dataclasses.replace(br.block, annotations=ann))
    else:
        path = ctx.loop_path(rv)
        lp: For = path[-1]  # type: ignore[assignment]
        ann = tuple((k, v) for k, v in lp.annotations if k != key) + ((key, value),)
        new = dataclasses.replace(lp, annotations=ann)
    return _rebind(ctx, path, new), None
