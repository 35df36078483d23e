"""Computes of the reordering and indexing operators: flip, tile, repeat, stack, one_hot,
cumulative sums/products, gathers, scatter_elements as a gather (shapes TVM's flat kernel
cannot index), and sorting by rank (sort, argsort, topk).

Sorting is written as te computes, not an extern: an element's rank is how many elements come
before it (ties broken by position, so the sort is stable), and output slot r reads the
element of rank r. That is quadratic in the sorted axis, which is fine for the sizes relax
programs sort (logits rows, small top-k) and keeps everything compilable by our codegen.
"""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .transform import _prod, reshape

B = tx.BinaryOp


def _i64(v: tx.PrimExpr) -> tx.PrimExpr:
    return v if v.dtype == "int64" else tx.Cast("int64", v)


def _at(idx: tuple[Any, ...], axis: int, value: Any) -> tuple[Any, ...]:
    return idx[:axis] + (value,) + idx[axis + 1:]


def _wrap(i: tx.PrimExpr, n: tx.PrimExpr) -> tx.PrimExpr:
    """Negative indices count from the end, as numpy's do."""
    i = _i64(i)
    return tx.Select(tx.binop(B.LT, i, tx.const(0, "int64")), i + n, i)


def flip(x: te.Tensor, axis: int) -> te.Tensor:
    axis %= x.ndim
    n = x.shape[axis]

    def at(i: tx.PrimExpr) -> tx.PrimExpr:  # TVM writes `1 - i` for n = 2, `n - i - 1`
        if isinstance(n, tx.IntImm):
            return tx.const(n.value - 1, n.dtype) - i
        return n - i - tx.const(1, n.dtype)
    return te.compute(x.shape, lambda *i: x[_at(i, axis, at(i[axis]))],
                      name="T_reverse_sequence")


def tile(x: te.Tensor, reps: tuple[int, ...]) -> te.Tensor:
    n = max(x.ndim, len(reps))
    reps = (1,) * (n - len(reps)) + tuple(reps)
    shape = (tx.const(1, "int64"),) * (n - x.ndim) + tuple(x.shape)
    out_shape = tuple(simplify(d * r) for d, r in zip(shape, reps))
    lead = n - x.ndim
    return te.compute(out_shape, lambda *i: x[tuple(tx.binop(B.FLOORMOD, v, d) for v, d in zip(
        i[lead:], x.shape))], name="T_tile")


def repeat(x: te.Tensor, r: int, axis: int | None) -> te.Tensor:
    if axis is None:
        x = reshape(x, (simplify(_prod(x.shape)),))
        axis = 0
    axis %= x.ndim
    shape = _at(tuple(x.shape), axis, simplify(x.shape[axis] * r))
    return te.compute(shape, lambda *i: x[_at(i, axis, tx.binop(B.FLOORDIV, i[axis], r))],
                      name="T_repeat")


def stack(xs: list[te.Tensor], axis: int) -> te.Tensor:
    axis %= xs[0].ndim + 1
    shape = tuple(xs[0].shape[:axis]) + (len(xs),) + tuple(xs[0].shape[axis:])

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        rest = i[:axis] + i[axis + 1:]
        out = xs[-1][rest]
        for k in range(len(xs) - 2, -1, -1):
            out = tx.Select(tx.binop(B.EQ, i[axis], tx.const(k, "int64")), xs[k][rest], out)
        return out
    return te.compute(shape, body, name="T_stack")


def one_hot(ind: te.Tensor, on: Any, off: Any, depth: int, axis: int) -> te.Tensor:
    axis %= ind.ndim + 1
    shape = tuple(ind.shape[:axis]) + (depth,) + tuple(ind.shape[axis:])

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        hit = tx.binop(B.EQ, _i64(ind[i[:axis] + i[axis + 1:]]), i[axis])
        return tx.Select(hit, on, off)
    return te.compute(shape, body, name="T_one_hot")


def cumulative(x: te.Tensor, axis: int | None, dtype: str, exclusive: bool, kind: str
               ) -> te.Tensor:
    if axis is None:
        x = reshape(x, (simplify(_prod(x.shape)),))
        axis = 0
    axis %= x.ndim
    k = te.reduce_axis(x.shape[axis], "k")
    unit = tx.const(0 if kind == "sum" else 1, dtype)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[_at(i, axis, k)]
        v = v if v.dtype == dtype else tx.Cast(dtype, v)
        take = tx.binop(B.LT if exclusive else B.LE, k, i[axis])
        return getattr(te, kind)(tx.Select(take, v, unit), axis=k)
    return te.compute(x.shape, body, name=f"T_cum{kind}")


def gather_elements(x: te.Tensor, ind: te.Tensor, axis: int) -> te.Tensor:
    axis %= x.ndim
    return te.compute(ind.shape, lambda *i: x[_at(i, axis, _wrap(ind[i], x.shape[axis]))],
                      name="T_gather_elements")


def gather_nd(x: te.Tensor, ind: te.Tensor, batch_dims: int) -> te.Tensor:
    m = int(ind.shape[-1].value)
    lead = ind.ndim - 1
    shape = tuple(ind.shape[:-1]) + tuple(x.shape[batch_dims + m:])

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        pos = tuple(_wrap(ind[i[:lead] + (tx.const(j, "int64"),)], x.shape[batch_dims + j])
                    for j in range(m))
        return x[tuple(i[:batch_dims]) + pos + tuple(i[lead:])]
    return te.compute(shape, body, name="T_gather_nd")


def scatter_elements(x: te.Tensor, ind: te.Tensor, upd: te.Tensor, axis: int, reduction: str
                     ) -> te.Tensor:
    axis %= x.ndim
    k = te.reduce_axis(ind.shape[axis], "k")

    def match(i: tuple[tx.PrimExpr, ...]) -> tx.PrimExpr:
        inside = tx.const(True, "bool")
        for d in range(x.ndim):
            if d != axis:
                inside = tx.binop(B.AND, inside, tx.binop(B.LT, i[d], ind.shape[d]))
        at = te.if_then_else(inside, _wrap(ind[_at(i, axis, k)], x.shape[axis]),
                             tx.const(-1, "int64"))
        return tx.binop(B.EQ, at, i[axis])

    if reduction == "update":
        last = te.compute(x.shape, lambda *i: te.max(tx.Select(match(i), k, tx.const(
            -1, "int64")), axis=k), name="T_scatter_last")
        return te.compute(x.shape, lambda *i: te.if_then_else(
            tx.binop(B.GE, last[i], tx.const(0, "int64")), upd[_at(i, axis, last[i])], x[i]),
            name="T_scatter_elements")
    if reduction == "mean":  # a running mean depends on the order of the updates
        raise NotImplementedError("scatter_elements: reduction 'mean' needs indices shaped "
                                  "like the data off the first axis and the scatter axis")
    reducer, unit, combine = {
        "add": ("sum", 0, lambda a, b: a + b), "mul": ("prod", 1, lambda a, b: a * b),
        "min": ("min", None, lambda a, b: tx.binop(B.MIN, a, b)),
        "max": ("max", None, lambda a, b: tx.binop(B.MAX, a, b))}[reduction]
    init = (te.max_value if reduction == "min" else te.min_value)(x.dtype) if unit is None \
        else tx.const(unit, x.dtype)
    acc = te.compute(x.shape, lambda *i: getattr(te, reducer)(te.if_then_else(
        match(i), upd[_at(i, axis, k)], init), axis=k), name="T_scatter_acc")
    return te.compute(x.shape, lambda *i: combine(x[i], acc[i]), name="T_scatter_elements")


def _rank(x: te.Tensor, axis: int, descending: bool) -> te.Tensor:
    k = te.reduce_axis(x.shape[axis], "k")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        other, mine = x[_at(i, axis, k)], x[i]
        ahead = tx.binop(B.GT if descending else B.LT, other, mine)
        tie = tx.binop(B.AND, tx.binop(B.EQ, other, mine), tx.binop(B.LT, k, i[axis]))
        return te.sum(tx.Select(tx.binop(B.OR, ahead, tie), tx.const(1, "int64"),
                                tx.const(0, "int64")), axis=k)
    return te.compute(x.shape, body, name="T_rank")


def sort_by_rank(x: te.Tensor, axis: int, descending: bool, count: Any = None,
                 want: str = "values", dtype: str = "int32") -> te.Tensor:
    """The first `count` elements along `axis` in sorted order, or their positions."""
    axis %= x.ndim
    rank = _rank(x, axis, descending)
    j = te.reduce_axis(x.shape[axis], "j")
    shape = _at(tuple(x.shape), axis, x.shape[axis] if count is None else count)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        hit = tx.binop(B.EQ, rank[_at(i, axis, j)], i[axis])
        if want == "values":
            return te.sum(tx.Select(hit, x[_at(i, axis, j)], tx.const(0, x.dtype)), axis=j)
        return te.sum(tx.Select(hit, tx.Cast(dtype, j), tx.const(0, dtype)), axis=j)
    return te.compute(shape, body, name="T_sort" if want == "values" else "T_argsort")


def reverse_sequence_plain(x: te.Tensor, lens: te.Tensor, seq_axis: int, batch_axis: int
                           ) -> te.Tensor:
    """TVM's form: position p of a sequence of length n reads p when n <= 1 or p >= n, the
    mirrored `n - p - 1` otherwise (`len - 1 - p` when n runs past the axis)."""
    seq_axis %= x.ndim
    batch_axis %= x.ndim
    size = x.shape[seq_axis]
    one = tx.const(1, "int64")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        n = lens[(i[batch_axis],)]
        n = tx.Cast("int64", n) if n.dtype != "int64" else n
        pos = i[seq_axis]
        last = tx.const(size.value - 1, "int64") if isinstance(size, tx.IntImm) else size - one
        keep = tx.binop(B.OR, tx.binop(B.LE, n, one), tx.binop(B.LE, n, pos))
        mirrored = te.if_then_else(tx.binop(B.LT, size, n), last - pos, n - pos - one)
        return x[_at(i, seq_axis, te.if_then_else(keep, pos, mirrored))]
    return te.compute(x.shape, body, name="T_reverse_sequence")
