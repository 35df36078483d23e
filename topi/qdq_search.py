"""Computes of quantize / dequantize, bucketize, median and multinomial_from_uniform.

Median and sampling are written as te computes like sorting is (topi/indexing.py): the lower
median is the element of rank (n - 1) // 2; a sample is how many cumulative probabilities of
its row are at most its uniform number, clamped to the last token.
"""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .indexing import _rank, cumulative
from .transform import _prod, reshape

B = tx.BinaryOp
_QRANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
           "uint16": (0, 65535), "int32": (-2**31, 2**31 - 1)}


def _param(t: te.Tensor, i: tuple[Any, ...], axis: int) -> tx.PrimExpr:
    """A scale / zero point: one value, or the one of `i`'s slice along `axis`."""
    if t.ndim == 0:
        return t[()]
    if isinstance(t.shape[0], tx.IntImm) and t.shape[0].value == 1:
        return t[0]
    return t[i[axis]]


def _as(dtype: str, v: tx.PrimExpr) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def quantize(x: te.Tensor, scale: te.Tensor, zp: te.Tensor, axis: int, out_dtype: str
             ) -> te.Tensor:
    axis %= max(x.ndim, 1)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        scaled = x[i] / _as(x.dtype, _param(scale, i, axis))
        v = tx.Call(x.dtype, "tir.round", (scaled,)) + _as(x.dtype, _param(zp, i, axis))
        if out_dtype in _QRANGE:
            lo, hi = _QRANGE[out_dtype]
            v = tx.binop(B.MAX, tx.binop(B.MIN, v, tx.const(float(hi), x.dtype)),
                         tx.const(float(lo), x.dtype))
        return tx.Cast(out_dtype, v)
    return te.compute(x.shape, body, name="quantized")


def dequantize(x: te.Tensor, scale: te.Tensor, zp: te.Tensor, axis: int, out_dtype: str
               ) -> te.Tensor:
    axis %= max(x.ndim, 1)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        shifted = _as("int32", x[i]) - _as("int32", _param(zp, i, axis))
        return tx.Cast(out_dtype, shifted) * _as(out_dtype, _param(scale, i, axis))
    return te.compute(x.shape, body, name="dequantized")


def bucketize(x: te.Tensor, boundaries: te.Tensor, out_int32: bool, right: bool
              ) -> te.Tensor:
    dtype = "int32" if out_int32 else "int64"
    k = te.reduce_axis(boundaries.shape[0], "k")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        below = tx.binop(B.LE if right else B.LT, boundaries[k], x[i])
        return te.sum(tx.Select(below, tx.const(1, dtype), tx.const(0, dtype)), axis=k)
    return te.compute(x.shape, body, name="T_bucketize")


def median(x: te.Tensor, axis: Any, keepdims: bool) -> Any:
    """Lower median (and its index) along one axis, or of every element (value only)."""
    whole = axis is None
    if whole:
        x, axis = reshape(x, (_prod(x.shape),)), 0
    axis = axis[0] % x.ndim if isinstance(axis, (list, tuple)) else axis % x.ndim
    n = x.shape[axis]
    rank = _rank(x, axis, descending=False)
    mid = tx.binop(B.FLOORDIV, _as("int64", n) - tx.const(1, "int64"), tx.const(2, "int64"))
    j = te.reduce_axis(n, "j")
    keep = (tx.const(1, "int64"),) if keepdims and not whole else ()
    shape = tuple(x.shape[:axis]) + keep + tuple(x.shape[axis + 1:])

    def source(i: tuple[Any, ...]) -> tuple[Any, ...]:
        return i[:axis] + (j,) + i[axis + len(keep):] if keep else i[:axis] + (j,) + i[axis:]

    def values(*i: tx.PrimExpr) -> tx.PrimExpr:
        src = source(i)
        hit = tx.binop(B.EQ, rank[src], mid)
        return te.sum(tx.Select(hit, x[src], tx.const(0, x.dtype)), axis=j)

    def indices(*i: tx.PrimExpr) -> tx.PrimExpr:
        hit = tx.binop(B.EQ, rank[source(i)], mid)
        return te.sum(tx.Select(hit, _as("int64", j), tx.const(0, "int64")), axis=j)

    vals = te.compute(shape, values, name="T_median")
    if whole:
        return vals
    return [vals, te.compute(shape, indices, name="T_median_indices")]


def multinomial_from_uniform(prob: te.Tensor, uniform: te.Tensor, rows: te.Tensor,
                             dtype: str) -> te.Tensor:
    cum = cumulative(prob, 1, prob.dtype, False, "sum")
    vocab = prob.shape[1]
    k = te.reduce_axis(vocab, "k")

    def count(i: tx.PrimExpr, c: tx.PrimExpr) -> tx.PrimExpr:
        row = _as("int64", rows[i, c])
        below = tx.binop(B.LE, cum[row, k], uniform[i, c])
        return te.sum(tx.Select(below, tx.const(1, dtype), tx.const(0, dtype)), axis=k)
    counts = te.compute(uniform.shape, count, name="T_sample_count")
    last = _as(dtype, vocab) - tx.const(1, dtype)
    return te.compute(uniform.shape, lambda i, c: tx.binop(B.MIN, counts[i, c], last),
                      name="T_sample")


__all__ = ["quantize", "dequantize", "bucketize", "median", "multinomial_from_uniform"]
