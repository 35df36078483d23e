"""The compute of `R.vision.roi_align` (NCHW): each output bin the average (or maximum) of a
fixed grid of bilinear samples, as TVM's topi defines it (no half-pixel offset; `aligned`
only drops the clamp of the roi's size to at least one cell)."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx

B = tx.BinaryOp
I64 = "int64"


def _bilinear(data: te.Tensor, b: Any, c: Any, y: tx.PrimExpr, x: tx.PrimExpr, dtype: str
              ) -> tx.PrimExpr:
    """data[b, c] sampled at (y, x): 0 beyond one cell outside the image, edges clamped."""
    h, w = data.shape[2], data.shape[3]
    hf, wf = tx.Cast(dtype, h), tx.Cast(dtype, w)
    zero, one = tx.const(0.0, dtype), tx.const(1.0, dtype)
    outside = tx.binop(B.OR, tx.binop(B.OR, y < -1.0, x < -1.0),
                       tx.binop(B.OR, y > hf, x > wf))
    yc = tx.binop(B.MIN, tx.binop(B.MAX, y, zero), hf - one)
    xc = tx.binop(B.MIN, tx.binop(B.MAX, x, zero), wf - one)
    y0 = tx.Cast(I64, tx.Call(dtype, "tir.floor", (yc,)))
    x0 = tx.Cast(I64, tx.Call(dtype, "tir.floor", (xc,)))
    y1 = tx.binop(B.MIN, y0 + 1, h - 1)
    x1 = tx.binop(B.MIN, x0 + 1, w - 1)
    dy, dx = yc - tx.Cast(dtype, y0), xc - tx.Cast(dtype, x0)
    top = data[b, c, y0, x0] * (one - dx) + data[b, c, y0, x1] * dx
    bottom = data[b, c, y1, x0] * (one - dx) + data[b, c, y1, x1] * dx
    return tx.Select(outside, zero, top * (one - dy) + bottom * dy)


def roi_align(data: te.Tensor, rois: te.Tensor, pooled_size: tuple[int, int], scale: float,
              sample_ratio: int, aligned: bool, mode: str) -> te.Tensor:
    if sample_ratio <= 0:
        raise NotImplementedError("R.vision.roi_align with sample_ratio <= 0 (a grid sized by "
                                  "each roi) is not supported yet; pass a positive sample_ratio")
    dtype = data.dtype
    ph, pw = pooled_size
    ry, rx = te.reduce_axis(sample_ratio, "rh"), te.reduce_axis(sample_ratio, "rw")
    s, grid = tx.const(scale, dtype), tx.const(float(sample_ratio), dtype)
    half, one = tx.const(0.5, dtype), tx.const(1.0, dtype)

    def body(i: Any, c: Any, py: Any, px: Any) -> tx.PrimExpr:
        corner = [rois[i, tx.const(k, I64)] * s for k in (1, 2, 3, 4)]
        rw, rh = corner[2] - corner[0], corner[3] - corner[1]
        if not aligned:
            rw, rh = tx.binop(B.MAX, rw, one), tx.binop(B.MAX, rh, one)
        bh, bw = rh / tx.const(float(ph), dtype), rw / tx.const(float(pw), dtype)
        y = corner[1] + tx.Cast(dtype, py) * bh + (tx.Cast(dtype, ry) + half) * bh / grid
        x = corner[0] + tx.Cast(dtype, px) * bw + (tx.Cast(dtype, rx) + half) * bw / grid
        b = tx.Cast(I64, rois[i, tx.const(0, I64)])
        v = _bilinear(data, b, c, y, x, dtype)
        if mode == "max":
            return te.max(v, axis=[ry, rx])
        return te.sum(v / (grid * grid), axis=[ry, rx])
    return te.compute((rois.shape[0], data.shape[1], ph, pw), body, name="roi_align")
