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


def _param(t: te.Tensor | tx.PrimExpr, i: tuple[Any, ...], axis: int) -> tx.PrimExpr:
    """A scale / zero point: a constant written into the kernel, one value, or the one of
    `i`'s slice along `axis`."""
    if isinstance(t, tx.PrimExpr):
        return t
    if all(isinstance(d, tx.IntImm) and d.value == 1 for d in t.shape):
        return t[(0,) * t.ndim]
    return t[i[axis]]


def _as(dtype: str, v: tx.PrimExpr) -> tx.PrimExpr:
    """`v` in `dtype`: a constant converted (as TVM's operators match a literal's type), any
    other value cast."""
    if v.dtype == dtype:
        return v
    if isinstance(v, (tx.IntImm, tx.FloatImm)):
        return tx.const(float(v.value) if dtype.startswith("float") else int(v.value), dtype)
    return tx.Cast(dtype, v)


def _clip_cast(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    """`v` clamped to the range of `dtype`, then cast to it (TVM's clip_cast)."""
    hi, lo = _as(v.dtype, te.max_value(dtype)), _as(v.dtype, te.min_value(dtype))
    return tx.Cast(dtype, tx.binop(B.MAX, tx.binop(B.MIN, v, hi), lo))


def quantize(x: te.Tensor, scale: Any, zp: Any, axis: int, out_dtype: str) -> te.Tensor:
    """`clip(round(x / scale) + zp)` in out_dtype; 0-d constant parameters arrive as values."""
    axis %= max(x.ndim, 1)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        scaled = x[i] / _as(x.dtype, _param(scale, i, axis))
        if "int" in out_dtype:
            scaled = tx.Call(x.dtype, "tir.round", (scaled,))
        return _clip_cast(scaled + _as(x.dtype, _param(zp, i, axis)), out_dtype)
    return te.compute(x.shape, body, name="quantized")


def dequantize(x: te.Tensor, scale: Any, zp: Any, axis: int, out_dtype: str) -> te.Tensor:
    """`(x - zp) * scale`, computed in float32 (then clipped to a narrower out_dtype)."""
    axis %= max(x.ndim, 1)
    wide = "float32" if x.dtype.startswith(("float", "bfloat")) else "int32"

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        shifted = _as(wide, x[i]) - _as(wide, _param(zp, i, axis))
        out = _as("float32", shifted) * _as("float32", _param(scale, i, axis))
        return out if out_dtype == "float32" else _clip_cast(out, out_dtype)
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
