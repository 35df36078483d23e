"""Vision computes: `roi_pool` (max pooling of regions of interest, NCHW), as TVM's topi."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx

B = tx.BinaryOp


def _i32(e: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Cast("int32", e)


def _roi_box(rois: te.Tensor, i: tx.PrimExpr, scale: float, dtype: str) -> list[tx.PrimExpr]:
    """start_w, start_h, end_w, end_h: the roi's corners scaled and rounded (ties to even)."""
    return [_i32(tx.Call(dtype, "tir.round", (rois[i, tx.const(k, "int64")]
                                               * tx.const(scale, dtype),)))
            for k in (1, 2, 3, 4)]


def _bin(p: tx.PrimExpr, size: tx.PrimExpr, n: int, start: tx.PrimExpr, limit: Any,
         dtype: str) -> tuple[tx.PrimExpr, tx.PrimExpr]:
    """[lo, hi) of bin p of n over `size` cells from `start`, clipped to [0, limit]."""
    width = tx.Cast(dtype, size) / tx.const(n, dtype)
    pf = tx.Cast(dtype, p)
    lo = _i32(tx.Call(dtype, "tir.floor", (pf * width,)))
    hi = _i32(tx.Call(dtype, "tir.ceil", ((pf + tx.const(1, dtype)) * width,)))
    top = _i32(tx.const(limit, "int64") if isinstance(limit, int) else limit)

    def clip(v: tx.PrimExpr) -> tx.PrimExpr:
        return tx.binop(B.MIN, tx.binop(B.MAX, v + start, tx.const(0, "int32")), top)
    return clip(lo), clip(hi)


def roi_pool(data: te.Tensor, rois: te.Tensor, pooled_size: tuple[int, int],
             spatial_scale: float) -> te.Tensor:
    """out[r, c, ph, pw]: the max of data[rois[r, 0], c] over bin (ph, pw) of roi r, 0 when
    the bin is empty (TVM's roi_pool_nchw)."""
    _, ch, height, width = data.shape
    pooled_h, pooled_w = pooled_size
    dtype = data.dtype
    one = tx.const(1, "int32")

    def bins(i: Any, ph: Any, pw: Any) -> tuple[tx.PrimExpr, ...]:
        sw, sh, ew, eh = _roi_box(rois, i, spatial_scale, dtype)
        roi_h = tx.binop(B.MAX, eh - sh + one, one)
        roi_w = tx.binop(B.MAX, ew - sw + one, one)
        return (*_bin(ph, roi_h, pooled_h, sh, height, dtype),
                *_bin(pw, roi_w, pooled_w, sw, width, dtype))

    def body(i: Any, c: Any, ph: Any, pw: Any) -> tx.PrimExpr:
        h0, h1, w0, w1 = bins(i, ph, pw)
        rh, rw = te.reduce_axis(height, "rh"), te.reduce_axis(width, "rw")
        inside = te.all(tx.binop(B.GE, _i32(rh), h0), tx.binop(B.LT, _i32(rh), h1),
                        tx.binop(B.GE, _i32(rw), w0), tx.binop(B.LT, _i32(rw), w1))
        batch = tx.Cast("int64", rois[i, tx.const(0, "int64")])
        value = tx.Select(inside, data[batch, c, rh, rw], te.min_value(dtype))
        return te.max(value, axis=[rh, rw])
    best = te.compute((rois.shape[0], ch, pooled_h, pooled_w), body, name="T_roi_pool_max")

    def empty_is_zero(i: Any, c: Any, ph: Any, pw: Any) -> tx.PrimExpr:
        h0, h1, w0, w1 = bins(i, ph, pw)
        filled = tx.binop(B.AND, tx.binop(B.LT, h0, h1), tx.binop(B.LT, w0, w1))
        return tx.Select(filled, best[i, c, ph, pw], tx.const(0, dtype))
    return te.compute(best.shape, empty_is_zero, name="T_roi_pool")
