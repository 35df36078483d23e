"""TVM's plain activation, softmax, normalization and loss computes (what LegalizeOps prints).

TVM builds these from topi's broadcasting operators, one block per step (`gelu` is five
`T_multiply`/`compute`/`T_add` blocks); topi/nn.py keeps the fused one-block forms that the
build pipeline's default schedule uses (see topi/schedule_mode.py).
"""

from __future__ import annotations

import math
from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from . import transform as T
from .creation import trilu

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


def _acc_dtype(dtype: str) -> str:
    """Normalizations accumulate half-precision inputs in float32, as TVM's topi."""
    return "float32" if dtype in ("float16", "bfloat16") else dtype


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def _count(dims: list[tx.PrimExpr], dtype: str) -> tx.PrimExpr:
    """The number of reduced elements as a `dtype` value: a literal when static, else the
    product of the casted dims (TVM's form)."""
    if all(isinstance(d, tx.IntImm) for d in dims):
        return _c(float(math.prod(d.value for d in dims)), dtype)
    out: tx.PrimExpr | None = None
    for d in dims:
        v = _c(float(d.value), dtype) if isinstance(d, tx.IntImm) else tx.Cast(dtype, d)
        out = v if out is None else out * v
    assert out is not None
    return out


def _split_axes(i: tuple[Any, ...], axes: list[int]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """An index of the input split into the kept (non-reduced) and the reduced positions."""
    kept = tuple(v for a, v in enumerate(i) if a not in axes)
    return kept, tuple(i[a] for a in axes)


def _reduced_index(kept: tuple[Any, ...], red: list[Any], ndim: int, axes: list[int]
                   ) -> tuple[Any, ...]:
    it_k, it_r = iter(kept), iter(red)
    return tuple(next(it_r) if a in axes else next(it_k) for a in range(ndim))


def layer_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, axes: Any, epsilon: float
               ) -> te.Tensor:
    """x_sum, x_mean and x_var_sum over `axes` (accumulated in float32 for half inputs), then
    (x - mean) * rsqrt(var + eps) * gamma + beta, as TVM's topi.nn.layer_norm."""
    axes = sorted(a % x.ndim for a in axes)
    acc = _acc_dtype(x.dtype)
    kept_shape = tuple(d for a, d in enumerate(x.shape) if a not in axes)
    count = _count([x.shape[a] for a in axes], acc)

    def reduced(name: str, f: Any) -> te.Tensor:
        ks = [te.reduce_axis(x.shape[a], f"k{a}") for a in axes]
        return te.compute(kept_shape, lambda *k: te.sum(f(_reduced_index(
            k, ks, x.ndim, axes), k), axis=ks), name=name)
    x_sum = reduced("x_sum", lambda i, k: _as(x[i], acc))
    x_mean = te.compute(kept_shape, lambda *k: x_sum[k] / count, name="x_mean")

    def dev(i: tuple[Any, ...], k: tuple[Any, ...]) -> tx.PrimExpr:
        return _as(x[i], acc) - x_mean[k]
    x_var_sum = reduced("x_var_sum", lambda i, k: dev(i, k) * dev(i, k))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        k, r = _split_axes(i, axes)
        inv = tx.Call(acc, "tir.rsqrt", (x_var_sum[k] / count + _c(epsilon, acc),))
        return _as(dev(i, k) * inv, x.dtype) * gamma[r] + beta[r]
    return te.compute(x.shape, body, name="T_layer_norm")


def rms_norm(x: te.Tensor, weight: te.Tensor, axes: Any, epsilon: float) -> te.Tensor:
    """x * rsqrt(mean(x^2) + eps) * weight in float32, cast back (TVM's topi.nn.rms_norm)."""
    axes = sorted(a % x.ndim for a in axes)
    xf = T.cast(x, "float32")
    red = T.sum(xf * xf, axes)
    count = _count([x.shape[a] for a in axes], "float32")
    inv = te.compute(red.shape, lambda *k: tx.Call("float32", "tir.rsqrt", (
        red[k] / count + _c(epsilon, "float32"),)), name="rsqrt")
    wf = T.cast(weight, "float32")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        k, r = _split_axes(i, axes)
        return inv[k] * xf[i] * wf[r]
    return T.cast(te.compute(x.shape, body, name="T_rms_norm"), x.dtype)


def nll_loss(x: te.Tensor, targets: te.Tensor, weights: te.Tensor | None, reduction: str,
             ignore_index: int) -> te.Tensor:
    """TVM's topi.nn.nll_loss: -x[n, t, ...] * w[t] where t != ignore_index; `mean` divides
    the sum by the sum of the weights used. Without weights, a `T_full` of ones stands in."""
    if weights is None:
        weights = T.full((x.shape[1] if x.ndim > 1 else x.shape[0],), x.dtype, 1.0)
    dt = x.dtype

    def kept(i: tuple[Any, ...]) -> tx.PrimExpr:
        return tx.binop(B.NE, targets[i], tx.const(ignore_index, targets.dtype))

    def loss(*i: tx.PrimExpr) -> tx.PrimExpr:
        t = targets[i]
        at = (i[0], t, *i[1:]) if x.ndim > 1 else (t,)
        return tx.Select(kept(i), (_c(0.0, dt) - x[at]) * weights[(t,)], _c(0.0, dt))
    out = te.compute(targets.shape, loss, name="nll_loss")
    if reduction == "none":
        return out
    total = T.sum(out) if targets.ndim else out
    if reduction == "sum":
        return total
    used = te.compute(targets.shape, lambda *i: tx.Select(
        kept(i), weights[(targets[i],)], _c(0.0, dt)), name="nll_loss")
    return T.divide(total, T.sum(used) if targets.ndim else used)


def batch_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, mean: te.Tensor,
               var: te.Tensor, axis: int, epsilon: float, center: bool, scale: bool,
               training: bool, momentum: float) -> list[te.Tensor]:
    """TVM's topi.nn.batch_norm, one broadcasting step per block: in training, the batch's
    mean and variance normalize and update the moving statistics; else the moving ones
    normalize and come back as `moving * 1`."""
    axis %= x.ndim
    shape = [tx.const(1, "int64")] * x.ndim
    shape[axis] = x.shape[axis]
    if training:
        reduce_axes = [a for a in range(x.ndim) if a != axis]
        count = tx.const(math.prod(int(x.shape[a]) for a in reduce_axes), "int64") if all(
            isinstance(x.shape[a], tx.IntImm) for a in reduce_axes) else _product(
            [x.shape[a] for a in reduce_axes])
        batch_mean = T.sum(x, axis=reduce_axes) / count
        mean_rs = T.reshape(batch_mean, shape)
        batch_var = T.sum((x - mean_rs) * (x - mean_rs), axis=reduce_axes) / count
        out = (x - mean_rs) / T.sqrt(T.reshape(batch_var, shape) + epsilon)
    else:
        out = (x - T.reshape(mean, shape)) / T.sqrt(T.reshape(var, shape) + epsilon)
    if scale:
        out = out * T.reshape(gamma, shape)
    if center:
        out = out + T.reshape(beta, shape)
    if training:
        keep = 1 - momentum
        return [out, keep * mean + momentum * batch_mean, keep * var + momentum * batch_var]
    return [out, mean * 1, var * 1]


def _product(dims: list[tx.PrimExpr]) -> tx.PrimExpr:
    out = dims[0]
    for d in dims[1:]:
        out = out * d
    return out


def group_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, groups: int, channel_axis: int,
               axes: Any, epsilon: float, center: bool = True, scale: bool = True
               ) -> te.Tensor:
    """TVM's topi.nn.group_norm: the channel axis reshaped into (groups, channels per group),
    sum and sum of squares in one tuple reduction (in float32 for float16 input), then
    (x - mean) * rsqrt(E[x^2] - mean^2 + eps) * gamma + beta, reshaped back."""
    ch = channel_axis % x.ndim
    per = simplify(tx.binop(B.FLOORDIV, x.shape[ch], tx.const(groups, x.shape[ch].dtype)))
    data = T.reshape(x, (*x.shape[:ch], groups, per, *x.shape[ch + 1:]))
    if x.dtype == "float16":
        data = T.cast(data, "float32")
    gamma_g, beta_g = (T.reshape(t, (groups, per)) for t in (gamma, beta))
    red = sorted([ch + 1, *((a % x.ndim) + (a % x.ndim > ch) for a in axes)])
    kept_shape = tuple(d for a, d in enumerate(data.shape) if a not in red)
    tuple_sum = te.comm_reducer(lambda a, b: (a[0] + b[0], a[1] + b[1]),
                                lambda t0, t1: (tx.const(0, t0), tx.const(0, t1)))

    def sums(*k: tx.PrimExpr) -> Any:
        ks = [te.reduce_axis(data.shape[a], f"k{a}") for a in red]
        v = data[_reduced_index(k, ks, data.ndim, red)]
        return tuple_sum((v, v * v), axis=ks)
    total, total_sq = te.compute(kept_shape, sums, name=f"{x.name}_red_temp")
    count = _count([data.shape[a] for a in red], data.dtype)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        k, _ = _split_axes(i, red)
        mean = total[k] / count
        var = total_sq[k] / count - mean * mean
        out = (data[i] - mean) * tx.Call(data.dtype, "tir.rsqrt",
                                         (var + _c(epsilon, data.dtype),))
        out = _as(out, x.dtype)
        at = (i[ch], i[ch + 1])
        out = out * gamma_g[at] if scale else out
        return out + beta_g[at] if center else out
    return T.reshape(te.compute(data.shape, body, name="T_group_norm"), x.shape)


def _batch_matmul(a: te.Tensor, b: te.Tensor, transpose_b: bool) -> te.Tensor:
    """TVM's topi.nn.batch_matmul (`T_batch_matmul_NT` / `_NN`), b marked layout free."""
    red = a.shape[2]
    out_n = b.shape[1] if transpose_b else b.shape[2]
    k = te.reduce_axis(red, "k")

    def body(bb: Any, i: Any, j: Any) -> tx.PrimExpr:
        rhs = b[bb, j, k] if transpose_b else b[bb, k, j]
        return te.sum(a[bb, i, k] * rhs, axis=k)
    return te.compute((a.shape[0], a.shape[1], out_n), body,
                      name="T_batch_matmul_" + ("NT" if transpose_b else "NN"),
                      attrs={"layout_free_placeholders": [b]})


def attention(q: te.Tensor, k: te.Tensor, v: te.Tensor, bias: te.Tensor | None,
              scale: Any, causal_mask: str | None) -> te.Tensor:
    """TVM's legalization of R.nn.attention (relax/transform/legalize_ops/nn.py): heads
    folded into the batch, batch matmuls, the bias added in 4-d, softmax (or a causal
    trilu-masked one), and the result laid out back as (batch, seq, heads, dim)."""
    batch, seq, heads, dim = q.shape
    seq_kv, dim_v = v.shape[1], v.shape[3]
    bs = simplify(batch * heads)
    q3, k3, v3 = (T.reshape(T.transpose(t, (0, 2, 1, 3)), (bs, n, d)) for t, n, d in
                  ((q, seq, dim), (k, seq_kv, dim), (v, seq_kv, dim_v)))
    p = _batch_matmul(q3, k3, transpose_b=True)
    if scale is not None:
        p = T.multiply(p, tx.const(float(getattr(scale, "value", scale)), p.dtype))
    else:
        p = T.divide(p, tx.Call(p.dtype, "tir.sqrt", (tx.Cast(p.dtype, dim),)))
    if bias is not None:
        p = T.reshape(T.add(T.reshape(p, (batch, heads, seq, seq_kv)), bias), (bs, seq, seq_kv))
    if causal_mask is None:
        s = softmax(p)
    else:
        if causal_mask == "TopLeft":
            offset: Any = tx.const(0, "int32")
        elif causal_mask == "BottomRight":
            offset = tx.Cast("int32", tx.Call("int64", "tir.fabs", (seq - seq_kv,)))
        else:
            raise NotImplementedError(f"attention: causal_mask {causal_mask!r}")
        masked = trilu(p, offset, False)
        expo = trilu(T.exp(masked - T.max(masked, axis=-1, keepdims=True)), offset, False)
        s = T.divide(expo, T.sum(expo, axis=-1, keepdims=True))
    o = T.reshape(_batch_matmul(s, v3, transpose_b=False), (batch, heads, seq, dim_v))
    return T.transpose(o, (0, 2, 1, 3))
