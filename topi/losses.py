"""Computes of the losses and of reverse_sequence / conv1d_transpose."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .nn_ext import conv2d_transpose
from .transform import reshape

B = tx.BinaryOp


def cross_entropy_with_logits(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    axes = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(x.shape)]
    total = te.compute((), lambda: te.sum(x[tuple(axes)] * y[tuple(axes)], axis=axes),
                       name="T_sum")
    n = x.shape[0] if x.ndim >= 2 else tx.const(1, "int64")
    return te.compute((), lambda: tx.const(0, x.dtype) - total[()] / tx.Cast(x.dtype, n),
                      name="T_cross_entropy")


def nll_loss(x: te.Tensor, t: te.Tensor, w: te.Tensor | None, reduction: str,
             ignore: int) -> te.Tensor:
    """-w[t] * x[n, t, ...] per element; mean divides by the sum of the weights used."""
    dt = x.dtype

    def pick(*i: tx.PrimExpr) -> tuple[tx.PrimExpr, tx.PrimExpr]:
        c = t[i]
        c = tx.Cast("int64", c) if c.dtype != "int64" else c
        keep = tx.binop(B.NE, c, tx.const(ignore, "int64"))
        safe = tx.Select(keep, c, tx.const(0, "int64"))
        weight = w[(safe,)] if w is not None else tx.const(1, dt)
        at = (i[0], safe, *i[1:]) if x.ndim >= 2 else (safe,)
        return tx.Select(keep, weight, tx.const(0, dt)), x[at]
    loss = te.compute(t.shape, lambda *i: tx.const(0, dt) - pick(*i)[0] * pick(*i)[1],
                      name="nll_loss")
    if reduction == "none":
        return loss
    axes = [te.reduce_axis(d, f"k{j}") for j, d in enumerate(t.shape)]
    total = te.compute((), lambda: te.sum(loss[tuple(axes)], axis=axes), name="nll_loss_sum")
    if reduction == "sum":
        return total
    axes2 = [te.reduce_axis(d, f"r{j}") for j, d in enumerate(t.shape)]
    wsum = te.compute((), lambda: te.sum(pick(*axes2)[0], axis=axes2), name="nll_loss_w")
    return te.compute((), lambda: total[()] / wsum[()], name="nll_loss_mean")


def conv1d_transpose(x: te.Tensor, w: te.Tensor, out_shape: Any, strides: Any, padding: Any,
                     dilation: Any, groups: int, out_dtype: str) -> te.Tensor:
    x4 = reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    w4 = reshape(w, (w.shape[0], w.shape[1], 1, w.shape[2]))
    shape4 = (out_shape[0], out_shape[1], 1, out_shape[2])
    out = conv2d_transpose(x4, w4, shape4, (1, strides[0]), (0, padding[0], 0, padding[1]),
                           (1, dilation[0]), groups, out_dtype)
    return reshape(out, tuple(out_shape))


def reverse_sequence(x: te.Tensor, lens: te.Tensor, seq_axis: int, batch_axis: int
                     ) -> te.Tensor:
    seq_axis %= x.ndim
    batch_axis %= x.ndim

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        n = lens[(i[batch_axis],)]
        n = tx.Cast("int64", n) if n.dtype != "int64" else n
        pos = i[seq_axis]
        src = tx.Select(tx.binop(B.LT, pos, n), n - 1 - pos, pos)
        return x[i[:seq_axis] + (src,) + i[seq_axis + 1:]]
    return te.compute(x.shape, body, name="T_reverse_sequence")



def hamming_window(n: Any, periodic: Any, alpha: Any, beta: Any, dtype: str) -> te.Tensor:
    def body(i: tx.PrimExpr) -> tx.PrimExpr:
        f64 = "float64"
        size = tx.Cast(f64, n) if n.dtype != f64 else n
        per = tx.Cast(f64, periodic) if periodic.dtype != f64 else periodic
        denom = size - (tx.const(1.0, f64) - per)
        denom = tx.Select(tx.binop(B.GT, denom, tx.const(0.0, f64)), denom, tx.const(1.0, f64))
        phase = tx.const(2 * 3.141592653589793, f64) * tx.Cast(f64, i) / denom
        a = tx.Cast(f64, alpha) if alpha.dtype != f64 else alpha
        b = tx.Cast(f64, beta) if beta.dtype != f64 else beta
        return tx.Cast(dtype, a - b * tx.Call(f64, "tir.cos", (phase,)))
    return te.compute((n,), body, name="T_hamming_window")
