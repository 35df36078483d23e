"""`topi.stft`: the short-time Fourier transform of 1-D signals, as TVM (and torch.stft with
center=False) compute it: frames of `n_fft` samples every `hop_length`, each multiplied by the
window and transformed; the result's last axis holds (real, imaginary)."""

from __future__ import annotations

import math
from typing import Any

from .. import te
from ..tir import expr as tx
from .api_ext import get_const_tuple

B = tx.BinaryOp


def stft(data: te.Tensor, n_fft: int, hop_length: int, win_length: int, window: te.Tensor,
         normalized: bool, onesided: bool, output_shape: Any) -> te.Tensor:
    """`output_shape` is (batch, frequencies, frames, 2) ((frequencies, frames, 2) for a
    1-D signal); frequencies are n_fft // 2 + 1 when `onesided`, else n_fft. A window shorter
    than n_fft is applied to the first win_length samples of each frame (TVM's convention)."""
    shape = tuple(int(d) for d in get_const_tuple(output_shape))
    dtype, n_fft, hop = data.dtype, int(n_fft), int(hop_length)
    batched = data.ndim == 2
    scale = 1.0 / math.sqrt(n_fft) if normalized else 1.0
    k = te.reduce_axis(n_fft, "k")

    def sample(i: tuple[tx.PrimExpr, ...], t: tx.PrimExpr, pos: tx.PrimExpr) -> tx.PrimExpr:
        at = t * tx.const(hop, t.dtype) + pos
        return data[(i[0], at)] if batched else data[(at,)]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        f, t, part = i[-3], i[-2], i[-1]
        angle = tx.const(2 * math.pi / n_fft, dtype) * tx.Cast(
            dtype, tx.binop(B.FLOORMOD, f * k, tx.const(n_fft, f.dtype)))
        cos = tx.Call(dtype, "tir.cos", (angle,))
        sin = tx.Call(dtype, "tir.sin", (angle,))
        weighted = sample(i, t, k) * window[(k,)] if int(win_length) >= n_fft else tx.Select(
            tx.binop(B.LT, k, tx.const(int(win_length), k.dtype)),
            sample(i, t, k) * window[(k,)], tx.const(0.0, dtype))
        term = tx.Select(tx.binop(B.EQ, part, tx.const(0, part.dtype)), weighted * cos,
                         -weighted * sin)
        return te.sum(term * tx.const(scale, dtype), axis=k)
    if len(shape) != (4 if batched else 3):
        raise ValueError(f"topi.stft: output_shape {shape} does not fit a "
                         f"{data.ndim}-D signal")
    del onesided  # NOTE: the frequencies computed are those output_shape asks for
    return te.compute(shape, body, name="T_stft")
