"""TVM's plain argmax / argmin: one reduction block carrying the (index, value) pair in two
temporary buffers (TVM's tuple comm_reducer), then a copy of the index into the output."""

from __future__ import annotations


from .. import te
from ..tir import expr as tx
from ..tir.stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, LetStmt, Range,
    Stmt, seq,
)

B = tx.BinaryOp
_ZERO = tx.const(0, "int64")


def argreduce(x: te.Tensor, axis: int | None, keepdims: bool, lowest: bool) -> te.Tensor:
    """First index of the max (min with lowest=True) along `axis` (None: all, flattened)."""
    axes = list(range(x.ndim)) if axis is None else [axis % x.ndim]
    out_shape = tuple(tx.const(1, "int64") if a in axes else d for a, d in enumerate(x.shape)
                      if keepdims or a not in axes)

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _reduce_nest(ins[0], outs[0], outs[1], axes, keepdims, lowest)

    index, _ = te.extern([out_shape, out_shape], [x], build, name=f"{x.name}_red_temp",
                         dtype=["int64", x.dtype], attrs={"tvmlite.bare_body": True})
    return te.compute(out_shape, lambda *i: index[i], name=f"{x.name}_red")


def _reduce_nest(x: Buffer, idx_buf: Buffer, val_buf: Buffer, axes: list[int], keepdims: bool,
                 lowest: bool) -> Stmt:
    spatial = [(f"ax{j}", d) for j, d in enumerate(idx_buf.shape)]
    reduce = [(f"k{a}", x.shape[a]) for a in axes]
    loops = [tx.Var(n, "int64") for n, _ in spatial + reduce]
    ivars = [tx.Var(f"v_{n}", "int64") for n, _ in spatial + reduce]
    sv, kv = ivars[:len(spatial)], dict(zip(axes, ivars[len(spatial):]))
    rest = iter(sv)
    src = []
    for a in range(x.ndim):
        if a in kv:
            if keepdims:
                next(rest)
            src.append(kv[a])
        else:
            src.append(next(rest))
    at = tuple(sv)
    old_i, old_v = tx.BufferLoad(idx_buf, at), tx.BufferLoad(val_buf, at)
    val = tx.BufferLoad(x, tuple(src))
    k = _flat(x, axes, kv)
    better = tx.binop(B.LT if lowest else B.GT, old_v, val)
    tie = tx.binop(B.AND, tx.binop(B.EQ, old_v, val), tx.binop(B.LT, old_i, k))
    new_i, new_v = tx.Var(f"v_{idx_buf.name}", "int64"), tx.Var(f"v_{val_buf.name}", x.dtype)
    body = LetStmt(new_i, tx.Select(tx.binop(B.OR, better, tie), old_i, k), LetStmt(
        new_v, tx.Select(better, old_v, val),
        seq([BufferStore(idx_buf, new_i, at), BufferStore(val_buf, new_v, at)])))
    start = (te.max_value if lowest else te.min_value)(x.dtype)
    init = seq([BufferStore(idx_buf, tx.const(-1, "int64"), at), BufferStore(val_buf, start, at)])
    kinds = [IterType.SPATIAL] * len(spatial) + [IterType.REDUCE] * len(reduce)
    block = Block(idx_buf.name.rsplit("_", 1)[0], tuple(
        IterVar(v, Range(_ZERO, d), t) for v, (_, d), t in zip(ivars, spatial + reduce, kinds)),
        body, init=init)
    stmt: Stmt = BlockRealize(tuple(loops), tx.IntImm("bool", 1), block)
    for lv, (_, d) in reversed(list(zip(loops, spatial + reduce))):
        stmt = For(lv, _ZERO, d, ForKind.SERIAL, stmt)
    return stmt


def _flat(x: Buffer, axes: list[int], kv: dict[int, tx.Var]) -> tx.PrimExpr:
    """The reduce position as one index: `k`, `k0 * 3 + k1` (static strides), or
    `(k0 * b + k1) * c + k2` (symbolic), as TVM writes it."""
    dims = [x.shape[a] for a in axes]
    if len(axes) == 1:
        return kv[axes[0]]
    if all(isinstance(d, tx.IntImm) for d in dims):
        out: tx.PrimExpr | None = None
        for j, a in enumerate(axes):
            stride = 1
            for d in dims[j + 1:]:
                stride *= d.value  # type: ignore[attr-defined]
            term = kv[a] if stride == 1 else kv[a] * tx.const(stride, "int64")
            out = term if out is None else out + term
        return out  # type: ignore[return-value]
    flat: tx.PrimExpr = kv[axes[0]]
    for a, d in zip(axes[1:], dims[1:]):
        flat = flat * d + kv[a]
    return flat


__all__ = ["argreduce"]
