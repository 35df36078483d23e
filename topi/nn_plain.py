"""TVM's plain forms of the activation, softmax and loss computes (what LegalizeOps prints).

TVM builds these from topi's broadcasting operators, one block per step (`gelu` is five
`T_multiply`/`compute`/`T_add` blocks); topi/nn.py keeps the fused one-block forms that the
build pipeline's default schedule uses (see topi/schedule_mode.py).
"""

from __future__ import annotations

import math
from typing import Any

from .. import te
from ..tir import expr as tx
from . import transform as T

B = tx.BinaryOp


def _c(value: float, dtype: str) -> tx.PrimExpr:
    return tx.const(value, dtype)


def _positive(v: tx.PrimExpr) -> tx.PrimExpr:
    return tx.binop(B.LT, _c(0.0, v.dtype), v)  # TVM 0.27 writes `x > 0` as `0 < x`


def gelu(x: te.Tensor) -> te.Tensor:
    """x * (0.5 + erf(x / sqrt 2) * 0.5); float16 takes erf in float32, as TVM."""
    erf_in = x * _c(0.5 ** 0.5, x.dtype)
    if x.dtype == "float16":
        erf = T.cast(T.erf(T.cast(erf_in, "float32")), "float16")
    else:
        erf = T.erf(erf_in)
    return x * T.add(_c(0.5, x.dtype), erf * _c(0.5, x.dtype))


def gelu_tanh(x: te.Tensor) -> te.Tensor:
    """0.5 x (1 + tanh(sqrt(2 / pi) x (1 + 0.044715 x^2)))."""
    dt = x.dtype
    half = T.multiply(_c(0.5, dt), x)
    cubic = 1 + T.multiply(_c(0.044715, dt), x) * x
    inner = T.multiply(_c(math.sqrt(2.0 / math.pi), dt), x) * cubic
    return half * T.add(_c(1.0, dt), T.tanh(inner))


def silu(x: te.Tensor) -> te.Tensor:
    return T.multiply(x, T.sigmoid(x))


def leaky_relu(x: te.Tensor, alpha: float) -> te.Tensor:
    return te.compute(x.shape, lambda *i: tx.Select(
        _positive(x[i]), x[i], x[i] * _c(alpha, x.dtype)), name="compute")


def prelu(x: te.Tensor, slope: te.Tensor, axis: int = 1) -> te.Tensor:
    """A one-element slope is first broadcast along the channel axis (TVM's form)."""
    axis %= x.ndim
    channels = x.shape[axis]
    if not T._is_one(channels) and T._is_one(slope.shape[0]):
        one = slope
        slope = te.compute((channels,), lambda c: one[tx.const(0, "int64")],
                           name="slope_broadcasted")
    return te.compute(x.shape, lambda *i: tx.Select(
        _positive(x[i]), x[i], x[i] * slope[i[axis]]), name="compute")


def cross_entropy_with_logits(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """-sum(x * y), divided by the batch size when x has one."""
    total = -T.sum(x * y)
    return total / x.shape[0] if x.ndim > 1 else total


def softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    axis %= x.ndim
    mx = _max_along(x, axis)
    k = te.reduce_axis(x.shape[axis], "k")
    ex = te.compute(x.shape, lambda *i: tx.Call(x.dtype, "tir.exp", (
        x[i] - mx[_drop(i, axis)],)), name="T_softmax_exp")
    s = te.compute(mx.shape, lambda *i: te.sum(ex[_put(i, axis, k)], axis=k),
                   name="T_softmax_expsum")
    return te.compute(x.shape, lambda *i: ex[i] / s[_drop(i, axis)], name="T_softmax_norm",
                      attrs={"axis": axis})


def log_softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    axis %= x.ndim
    mx = _max_along(x, axis)
    k = te.reduce_axis(x.shape[axis], "k")
    s = te.compute(mx.shape, lambda *i: te.sum(tx.Call(x.dtype, "tir.exp", (
        x[_put(i, axis, k)] - mx[i],)), axis=k), name="compute")
    return te.compute(x.shape, lambda *i: x[i] - mx[_drop(i, axis)] - tx.Call(
        x.dtype, "tir.log", (s[_drop(i, axis)],)), name="compute", attrs={"axis": axis})


def _max_along(x: te.Tensor, axis: int) -> te.Tensor:
    """The max over `axis` (dropped), starting from the lowest finite value, as TVM."""
    k = te.reduce_axis(x.shape[axis], "k")
    shape = tuple(d for a, d in enumerate(x.shape) if a != axis)
    return te.compute(shape, lambda *i: te.max(x[_put(i, axis, k)], axis=k,
                                               init=te.min_value(x.dtype)),
                      name="T_softmax_maxelem")


def _drop(i: tuple[Any, ...], axis: int) -> tuple[Any, ...]:
    return i[:axis] + i[axis + 1:]


def _put(i: tuple[Any, ...], axis: int, v: Any) -> tuple[Any, ...]:
    return i[:axis] + (v,) + i[axis:]
