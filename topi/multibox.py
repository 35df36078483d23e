"""The compute of `R.vision.multibox_transform_loc`: SSD priors plus encoded offsets decoded
to (ymin, xmin, ymax, xmax) boxes (TFLite's center-size decode), and class scores through
softmax, a threshold mask and optionally no background class."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .nn import softmax

B = tx.BinaryOp


def _exp(v: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Call(v.dtype, "tir.exp", (v,))


def decode_boxes(loc: te.Tensor, anchor: te.Tensor, clip: bool, variances: Any) -> te.Tensor:
    batch, n = loc.shape[0], anchor.shape[1]
    dt = loc.dtype
    half = tx.const(0.5, dt)
    var = [tx.const(float(v), dt) for v in variances]

    def body(b: Any, i: Any, k: Any) -> tx.PrimExpr:
        left, top, right, bottom = (anchor[0, i, tx.const(j, "int64")] for j in range(4))
        ex, ey, ew, eh = (loc[b, i * 4 + j] for j in range(4))
        ha, wa = bottom - top, right - left
        yc = ey * var[1] * ha + (top + bottom) * half
        xc = ex * var[0] * wa + (left + right) * half
        h = _exp(eh * var[3]) * ha * half
        w = _exp(ew * var[2]) * wa * half
        def at(j: int) -> tx.PrimExpr:
            return tx.binop(B.EQ, k, tx.const(j, k.dtype))
        value = tx.Select(at(0), yc - h, tx.Select(at(1), xc - w,
                                                   tx.Select(at(2), yc + h, xc + w)))
        if clip:
            value = tx.binop(B.MIN, tx.binop(B.MAX, value, tx.const(0.0, dt)),
                             tx.const(1.0, dt))
        return value
    return te.compute((batch, n, tx.const(4, "int64")), body, name="multibox_boxes")


def class_scores(cls: te.Tensor, threshold: float, keep_background: bool,
                 apply_softmax: bool) -> te.Tensor:
    probs = softmax(cls, axis=1) if apply_softmax else cls
    dt = cls.dtype
    zero = tx.const(0.0, dt)

    def body(b: Any, c: Any, i: Any) -> tx.PrimExpr:
        v = probs[b, c, i]
        keep = v >= tx.const(float(threshold), dt)
        if not keep_background:
            keep = tx.binop(B.AND, keep, c > 0)
        return tx.Select(keep, v, zero)
    return te.compute(cls.shape, body, name="multibox_scores")


def multibox_transform_loc(cls: te.Tensor, loc: te.Tensor, anchor: te.Tensor, clip: bool,
                           threshold: float, variances: Any, keep_background: bool,
                           apply_softmax: bool) -> list[te.Tensor]:
    return [decode_boxes(loc, anchor, clip, variances),
            class_scores(cls, threshold, keep_background, apply_softmax)]
