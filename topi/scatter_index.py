"""Computes of slice_scatter, index_tensor (numpy advanced indexing) and index_put.

index_put is a scatter written as a gather: each output element finds the last index row that
names it (or sums every one, `accumulate=True`).
"""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .indexing import _at, _i64, _wrap
from .transform import bcast_index, broadcast_shape

B = tx.BinaryOp


def _int(v: Any) -> tx.PrimExpr:
    return _i64(v if isinstance(v, tx.PrimExpr) else tx.const(int(v), "int64"))


def slice_scatter(x: te.Tensor, src: te.Tensor, start: Any, end: Any, step: Any, axis: int
                  ) -> te.Tensor:
    axis %= x.ndim
    start, step = _int(start), _int(step)
    n = src.shape[axis]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        offset = i[axis] - start
        k = tx.binop(B.FLOORDIV, offset, step)
        hit = tx.binop(B.AND, tx.binop(B.GE, offset, tx.const(0, "int64")), tx.binop(
            B.AND, tx.binop(B.EQ, tx.binop(B.FLOORMOD, offset, step), tx.const(0, "int64")),
            tx.binop(B.LT, k, n)))
        safe = tx.Select(hit, k, tx.const(0, "int64"))
        return te.if_then_else(hit, src[_at(i, axis, safe)], x[i])
    return te.compute(x.shape, body, name="T_slice_scatter")


def index_tensor(x: te.Tensor, indices: list[te.Tensor]) -> te.Tensor:
    lead: tuple[Any, ...] = tuple(indices[0].shape)
    for t in indices[1:]:
        lead = broadcast_shape(lead, t.shape)
    rest = tuple(x.shape[len(indices):])

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        head, tail = i[:len(lead)], i[len(lead):]
        picks = tuple(_wrap(bcast_index(t, head), x.shape[d]) for d, t in enumerate(indices))
        return x[picks + tuple(tail)]
    return te.compute(lead + rest, body, name="T_index_tensor")


def index_put(x: te.Tensor, indices: list[te.Tensor], values: te.Tensor, accumulate: bool
              ) -> te.Tensor:
    k = te.reduce_axis(indices[0].shape[0], "k")

    def match(i: tuple[tx.PrimExpr, ...]) -> tx.PrimExpr:
        hit: tx.PrimExpr = tx.const(True, "bool")
        for d, t in enumerate(indices):
            hit = tx.binop(B.AND, hit, tx.binop(B.EQ, _wrap(t[k], x.shape[d]), i[d]))
        return hit

    def value(at: tx.PrimExpr) -> tx.PrimExpr:
        return values[()] if values.ndim == 0 else values[tx.binop(
            B.FLOORMOD, at, values.shape[0])]

    if accumulate:
        added = te.compute(x.shape, lambda *i: te.sum(tx.Select(
            match(i), value(k), tx.const(0, x.dtype)), axis=k), name="T_index_put_sum")
        return te.compute(x.shape, lambda *i: x[i] + added[i], name="T_index_put")
    last = te.compute(x.shape, lambda *i: te.max(tx.Select(
        match(i), k, tx.const(-1, "int64")), axis=k), name="T_index_put_last")
    return te.compute(x.shape, lambda *i: te.if_then_else(
        tx.binop(B.GE, last[i], tx.const(0, "int64")), value(last[i]), x[i]), name="T_index_put")
