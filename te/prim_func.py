"""`te.create_prim_func([A, B, C])`: a PrimFunc with one block per compute (TVM's layout).

The arguments become the parameters in order (inputs and outputs alike); computes reached from
them that are not arguments become buffers of the root block. Each compute is a loop nest
over its spatial then reduce axes around a block that binds fresh iter vars; a reduction's
block has `T.init()` with the combiner's identity.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import (
    Block, BlockRealize, Buffer, BufferRegion, BufferStore, For, ForKind, IterType, IterVar,
    Range, Stmt, seq,
)
from .extern import ExternOp
from .index_dtype import override_index_dtype
from .multi_output import tuple_reduce_body
from .tensor import AxisVar, ComputeOp, PlaceholderOp, Reduce, Tensor, tensors_read

TRUE = tx.IntImm("bool", 1)


class _Rename(Mutator):
    def __init__(self, vmap: dict[tx.Var, tx.PrimExpr]) -> None:
        self.vmap = vmap

    def visit_Var(self, v: tx.Var) -> tx.PrimExpr:
        return self.vmap.get(v, v)

    visit_AxisVar = visit_Var


def identity(combiner: Any, dtype: str) -> tx.PrimExpr:
    if not isinstance(combiner, str):  # a te.comm_reducer
        return combiner.identity(dtype)
    if combiner in ("sum", "prod"):
        return tx.const(0 if combiner == "sum" else 1, dtype)
    if dtype.startswith("float"):
        return tx.FloatImm(dtype, float("-inf") if combiner == "max" else float("inf"))
    bits = int(dtype.lstrip("uint")) if dtype != "bool" else 1
    lo, hi = (0, 2**bits - 1) if dtype.startswith("uint") else (-(2**(bits - 1)),
                                                                2**(bits - 1) - 1)
    return tx.const(lo if combiner == "max" else hi, dtype)


def combine(combiner: Any, a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
    if not isinstance(combiner, str):  # a te.comm_reducer
        return combiner.combine(a, b)
    if combiner == "prod" and a.dtype == "bool":  # TVM multiplies booleans with `and`
        return tx.binop(tx.BinaryOp.AND, a, b)
    op = {"sum": tx.BinaryOp.ADD, "prod": tx.BinaryOp.MUL, "max": tx.BinaryOp.MAX,
          "min": tx.BinaryOp.MIN}[combiner]
    return tx.binop(op, a, b)


def _topo(outputs: list[Tensor]) -> list[Tensor]:
    order: list[Tensor] = []
    seen: set[int] = set()

    def visit(t: Tensor) -> None:
        if id(t) in seen:
            return
        seen.add(id(t))
        if isinstance(t.op, ExternOp):
            for u in t.op.inputs:
                visit(u)
        if isinstance(t.op, ComputeOp):
            epilogue = t.op.epilogue[1] if t.op.epilogue is not None else None
            bodies = [*(t.op.bodies or (t.op.body,)), *([] if epilogue is None else [epilogue])]
            for u in [u for b in bodies for u in tensors_read(b)]:
                visit(u)
        order.append(t)
        for sibling in getattr(t.op, "outputs", ()):  # every output of a multi-output op
            visit(sibling)

    for t in outputs:
        visit(t)
    return order


def compute_stmt(t: Tensor) -> Stmt:
    """The loop nest and block(s) that compute tensor `t`."""
    op = t.op
    assert isinstance(op, ComputeOp)
    red = op.body if isinstance(op.body, Reduce) else None
    axes: list[AxisVar] = list(op.axis) + list(red.axis if red is not None else ())
    if op.nest is not None:
        return _nest_stmt(t, op, red, axes)
    loops = [tx.Var(a.name, a.dtype) for a in axes]
    mins = [a.dom.min for a in axes]  # type: ignore[union-attr]
    values = tuple(lv if _is_zero(m) else lv + m for lv, m in zip(loops, mins))
    # an elementwise op with several outputs: one block each, in one loop nest
    outputs = op.outputs if op.bodies and red is None else [t]
    realizes = [_realize(_block(u, op, red, axes, with_init=True), values) for u in outputs]
    stmt: Stmt = seq(realizes)
    for lv, a in reversed(list(zip(loops, axes))):
        stmt = For(lv, tx.const(0, lv.dtype), a.dom.extent, ForKind.SERIAL, stmt)  # type: ignore
    return stmt


def _block(t: Tensor, op: ComputeOp, red: Reduce | None, axes: list[AxisVar],
           with_init: bool, out: Buffer | None = None) -> Block:
    """The block of compute `t` over `axes` (fresh iter vars), storing to `out` (default
    `t`'s buffer); a reduction's block has `T.init()` when `with_init`, else only the update.
    Of an elementwise op with several outputs, the block of output `t`; of a tuple
    reduction, the one block of all its outputs."""
    out = out or t.buffer
    ivars = [tx.Var(f"v_{a.name}", a.dtype) for a in axes]
    rename = _Rename(dict(zip(axes, ivars)))
    store_idx = tuple(ivars[: len(op.axis)])
    init = None
    name = op.name
    if red is None:
        body: Stmt = BufferStore(out, rename.visit(op.bodies[t.value_index] if op.bodies
                                                   else op.body), store_idx)
        name = f"{op.name}_v{t.value_index}" if op.bodies else name
    elif red.sources:
        body, init = tuple_reduce_body(op, rename, store_idx)
    else:
        old = tx.BufferLoad(out, store_idx)
        # NOTE: renamed after combining: a comm_reducer's combiner may use the axes too
        value = rename.visit(combine(red.combiner, old, red.source))
        if red.condition is not None:
            value = tx.Select(rename.visit(red.condition), value, old)
        body = BufferStore(out, value, store_idx)
        if with_init:
            # the identity may depend on the spatial axes (a comm_reducer's `lambda t: B[i]`)
            init = BufferStore(out, rename.visit(_init_value(t, red)), store_idx)
    iter_vars = tuple(
        IterVar(v, Range(a.dom.min, a.dom.extent), a.iter_type)  # type: ignore[union-attr]
        for v, a in zip(ivars, axes))
    return Block(name, iter_vars, body, init=init,
                 annotations=tuple((k, _buffers_for_tensors(v)) for k, v in op.attrs.items()))


def _buffers_for_tensors(value: Any) -> Any:
    """An attribute value with te tensors replaced by their buffers (what TVM's block keeps)."""
    if isinstance(value, Tensor):
        return value.buffer
    if isinstance(value, (list, tuple)):
        return type(value)(_buffers_for_tensors(v) for v in value)
    return value


_LAYOUT_FREE = "layout_free_placeholders"


class _LayoutFreeParams(Mutator):
    """Blocks' `layout_free_placeholders` that are parameters move to the function's
    `layout_free_buffers` (their parameter positions), as TVM's create_prim_func does."""

    def __init__(self, param_buffers: list[Buffer]) -> None:
        self.position = {id(b): k for k, b in enumerate(param_buffers)}
        self.found: list[int] = []

    def visit_Block(self, b: Block) -> Block:
        b = self.generic_visit(b)
        attrs = dict(b.annotations)
        if _LAYOUT_FREE not in attrs:
            return b
        kept = []
        for buf in attrs[_LAYOUT_FREE]:
            k = self.position.get(id(buf))
            if k is None:
                kept.append(buf)
            elif k not in self.found:
                self.found.append(k)
        if kept:
            attrs[_LAYOUT_FREE] = kept
        else:
            del attrs[_LAYOUT_FREE]
        return replace(b, annotations=tuple(attrs.items()))


def _realize(block: Block, values: tuple[tx.PrimExpr, ...]) -> BlockRealize:
    if not block.iter_vars:  # a 0-d compute: TVM's block still has one spatial iter var
        zero = tx.const(0)
        dummy = IterVar(tx.Var("vi", "int32"), Range(zero, tx.const(1)), IterType.SPATIAL)
        return BlockRealize((zero,), TRUE, replace(block, iter_vars=(dummy,)))
    return BlockRealize(values, TRUE, block)


def _init_value(t: Tensor, red: Reduce) -> tx.PrimExpr:
    return red.init if red.init is not None else identity(red.combiner, t.dtype)


def _nest_stmt(t: Tensor, op: ComputeOp, red: Reduce | None, axes: list[AxisVar]) -> Stmt:
    """The loops of `op.nest` (see te.tensor.LoopNest) around the compute's block."""
    nest = op.nest
    assert nest is not None
    split, kinds = dict(nest.split), dict(nest.kinds)
    by_name = {a.name: a for a in axes}

    def extent(name: str) -> tx.PrimExpr:
        base, _, part = name.partition(".")
        ext = by_name[base].dom.extent  # type: ignore[union-attr]
        if not part:
            return ext
        f = split[base]
        return tx.const(f if part == "i" else ext.value // f, ext.dtype)  # type: ignore

    def dtype(name: str) -> str:
        return by_name[name.partition(".")[0]].dtype

    lv = {name: tx.Var(name.replace(".", "_"), dtype(name)) for name in nest.order}

    def loops(names: list[str], stmt: Stmt, lv: dict[str, tx.Var] = lv) -> Stmt:
        for name in reversed(names):
            kind = ForKind(kinds.get(name, "serial"))
            stmt = For(lv[name], tx.const(0, lv[name].dtype), extent(name), kind, stmt)
        return stmt

    def realize(block: Block, block_axes: list[AxisVar], lv: dict[str, tx.Var] = lv) -> Stmt:
        values = []
        for a in block_axes:
            if a.name in split:
                v = lv[f"{a.name}.o"] * tx.const(split[a.name], a.dtype) + lv[f"{a.name}.i"]
            else:
                v = lv[a.name]
            m = a.dom.min  # type: ignore[union-attr]
            values.append(v if _is_zero(m) else v + m)
        return BlockRealize(tuple(values), TRUE, block)

    reduce_names = {a.name for a in (red.axis if red is not None else ())}
    order = list(nest.order)
    first_red = next((k for k, n in enumerate(order) if n.partition(".")[0] in reduce_names),
                     len(order))
    decompose = any(n.partition(".")[0] not in reduce_names for n in order[first_red:])
    acc = op.accumulator if decompose else None
    update = realize(_block(t, op, red, axes, with_init=not decompose, out=acc), axes)
    if not decompose:
        return loops(order, update)
    assert red is not None
    # TVM's decompose_reduction at the first reduce loop: the init runs inside the spatial
    # loops around it, just before the reduction of the same tile (which stays in cache, or
    # in registers), not as a separate pass over the whole output first
    spatial = list(op.axis)
    ivars = [tx.Var(f"v_{a.name}", a.dtype) for a in spatial]
    init_block = Block(f"{op.name}_init", tuple(
        IterVar(v, Range(a.dom.min, a.dom.extent), IterType.SPATIAL)  # type: ignore
        for v, a in zip(ivars, spatial)),
        BufferStore(acc or t.buffer, _init_value(t, red), tuple(ivars)))
    inner = order[first_red:]
    init_loops = [n for n in inner if n.partition(".")[0] not in reduce_names]
    # the init's own loop variables (`i_init`, as TVM names them): a var is bound once
    init_lv = {**lv, **{n: tx.Var(f"{n.replace('.', '_')}_init", dtype(n)) for n in init_loops}}
    stmts = [loops(init_loops, realize(init_block, spatial, init_lv), init_lv),
             loops(inner, update)]
    if op.epilogue is not None:  # after the tile's reduction, over the same tile
        epi_lv = {**lv, **{n: tx.Var(f"{n.replace('.', '_')}_epi", dtype(n))
                           for n in init_loops}}
        stmts.append(loops(init_loops, realize(_epilogue_block(t, op, ivars, spatial),
                                               spatial, epi_lv), epi_lv))
    return loops(order[:first_red], seq(stmts))


def _epilogue_block(t: Tensor, op: ComputeOp, ivars: list[tx.Var], spatial: list[AxisVar]
                    ) -> Block:
    assert op.epilogue is not None
    acc, expr = op.epilogue
    evars = [tx.Var(v.name.replace("v_", "e_", 1), v.dtype) for v in ivars]
    tile = op.accumulator or t.buffer
    vmap: dict[tx.Var, tx.PrimExpr] = {acc: tx.BufferLoad(tile, tuple(evars))}
    vmap.update({a: v for a, v in zip(op.axis, evars)})
    return Block(f"{op.name}_epilogue", tuple(
        IterVar(v, Range(a.dom.min, a.dom.extent), IterType.SPATIAL)  # type: ignore
        for v, a in zip(evars, spatial)),
        BufferStore(t.buffer, _Rename(vmap).visit(expr), tuple(evars)))


def _plain() -> bool:
    """Whether computes come out in TVM's plain form (topi/schedule_mode.py)."""
    from ..topi.schedule_mode import scheduled  # topi builds on te

    return not scheduled()


def _is_zero(e: tx.PrimExpr) -> bool:
    return isinstance(e, tx.IntImm) and e.value == 0


def _later_output(t: Tensor, computes: list[Tensor]) -> bool:
    """A second output of an ExternOp or a multi-output compute (the op's statement is
    emitted once, for its first output met)."""
    return next(u for u in computes if u.op is t.op) is not t


def _extern_stmt(op: ExternOp) -> Stmt:
    """One opaque block running the user's statement over whole input and output buffers
    (tvmlite: the statement itself, loops and blocks of its own, with `tvmlite.bare_body`)."""
    if op.attrs.get("tvmlite.bare_body"):
        return op.body
    def whole(b: Any) -> BufferRegion:
        return BufferRegion(b, tuple(Range(tx.const(0, d.dtype), d) for d in b.shape))
    block = Block(op.name, (), op.body, reads=tuple(whole(b) for b in op.input_placeholders),
                  writes=tuple(whole(b) for b in op.output_placeholders))
    return BlockRealize((), TRUE, block)


def _uniquely_named_stmt(t: Tensor, seen: dict[str, int]) -> Stmt:
    """compute_stmt, its blocks named `<name>_<k>` when an earlier compute had the name (TVM)."""
    op = t.op
    base = op.name
    k = seen.get(base, 0)
    seen[base] = k + 1
    if k == 0:
        return compute_stmt(t)
    op.name = f"{base}_{k}"
    try:
        return compute_stmt(t)
    finally:
        op.name = base


def _refuse_unsupported(tensors: list[Tensor]) -> None:
    for t in tensors:
        if not isinstance(t.op, (ComputeOp, ExternOp, PlaceholderOp)):
            kind = type(t.op).__name__
            raise TypeError(f"Unsupported Operation: te.{kind}. Only te.placeholder, te.compute "
                            f"and te.extern are allowed (tensor {t.name!r} comes from a {kind})")


def create_prim_func(args: list[Any], index_dtype_override: Any = None) -> PrimFunc:
    """A PrimFunc computing the compute tensors of `args` from its placeholders; a scalar
    `te.var` among `args` is a parameter of its own (as in TVM)."""
    args = list(args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    given = {id(t) for t in tensors}
    order = _topo([a for a in tensors if isinstance(a.op, (ComputeOp, ExternOp))])
    _refuse_unsupported(order + tensors)
    missing = [t.name for t in order if not isinstance(t.op, (ComputeOp, ExternOp))
               and id(t) not in given]
    if missing:
        raise ValueError(f"te.create_prim_func: placeholder(s) {missing} are used but not in "
                         "the argument list")
    computes = [t for t in order if isinstance(t.op, (ComputeOp, ExternOp))]
    # NOTE: an extern op's other outputs are written even when nothing reads them
    siblings = [b for op in dict.fromkeys(t.op for t in computes if isinstance(t.op, ExternOp))
                for b in op.output_placeholders if all(b is not t.buffer for t in computes)]
    locals_ = tuple(t.buffer for t in computes if id(t) not in given) + tuple(siblings) + tuple(
        t.op.accumulator for t in computes
        if isinstance(t.op, ComputeOp) and t.op.accumulator is not None)
    seen: dict[str, int] = {}
    nests = [_uniquely_named_stmt(t, seen) if isinstance(t.op, ComputeOp) else _extern_stmt(t.op)
             for t in computes if not _later_output(t, computes)]
    root = Block("root", (), seq(nests), alloc_buffers=locals_)
    params = tuple(_param(a) for a in args)
    bmap = tuple((p, t.buffer) for p, t in zip(params, args) if isinstance(t, Tensor))
    layout_free = _LayoutFreeParams([t.buffer if isinstance(t, Tensor) else None for t in args])
    body = layout_free.visit(BlockRealize((), TRUE, root))
    attrs: tuple[tuple[str, Any], ...] = (("global_symbol", "main"), ("tir.noalias", True))
    if layout_free.found:
        attrs += (("layout_free_buffers", sorted(layout_free.found)),)
    func = PrimFunc(params, bmap, body, attrs)
    return func if index_dtype_override is None else override_index_dtype(
        func, str(index_dtype_override))


def _param(arg: Any) -> tx.Var:
    if isinstance(arg, Tensor):
        return tx.Var(arg.name, "handle")
    if isinstance(arg, tx.Var):
        return arg
    raise TypeError(f"te.create_prim_func: an argument must be a te.Tensor or a te.var, got "
                    f"{type(arg).__name__} {arg!r}")

__all__ = ["create_prim_func", "IterType"]
