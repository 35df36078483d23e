"""te computes of the backward operators (`R.grad.*`): nll_loss, the 2-d pools (NCHW) and
take. Each is written as a gather: an element of the input's gradient sums the output
gradients that element contributed to."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .nn import pool2d_nchw

B = tx.BinaryOp


def _i64(e: tx.PrimExpr) -> tx.PrimExpr:
    return e if e.dtype == "int64" else tx.Cast("int64", e)


def _and(*conds: tx.PrimExpr) -> tx.PrimExpr:
    out = conds[0]
    for c in conds[1:]:
        out = tx.binop(B.AND, out, c)
    return out


def nll_loss_backward(g: te.Tensor, x: te.Tensor, t: te.Tensor, w: te.Tensor | None,
                      reduction: str, ignore: int) -> te.Tensor:
    """d loss / d predictions: `-w[t] * g` at the target class, 0 elsewhere (mean: divided by
    the sum of the weights used). The stages are TVM's (weights_new when a class is ignored,
    all_weights, T_broadcast_to, all_weights_red, T_divide, pred_grad)."""
    dt = x.dtype
    if w is None:
        w = te.compute((x.shape[1] if x.ndim > 1 else x.shape[0],), lambda i: tx.const(1, dt),
                       name="T_full")
    if ignore >= 0:  # (a negative index is never a target)
        weights = w
        w = te.compute(weights.shape, lambda i: tx.Select(
            tx.binop(B.EQ, i, tx.const(ignore, i.dtype)), tx.const(0, dt), weights[i]),
            name="weights_new")
    wt = te.compute(t.shape, lambda *i: w[(t[i],)], name="all_weights")
    scale = g
    if reduction in ("sum", "mean"):
        scale = te.compute(t.shape, lambda *i: g[()], name="T_broadcast_to")
    if reduction == "mean":
        total = wt
        if t.ndim:  # a 0-d weight is its own sum
            axes = [te.reduce_axis(d, f"k{j}") for j, d in enumerate(t.shape)]
            total = te.compute((), lambda: te.sum(wt[tuple(axes)], axis=axes),
                               name="all_weights_red")
        bcast = scale
        scale = te.compute(t.shape, lambda *i: bcast[i] / total[()], name="T_divide")

    def grad(*i: tx.PrimExpr) -> tx.PrimExpr:
        at = (i[0], *i[2:]) if x.ndim >= 2 else ()
        cls = i[1] if x.ndim >= 2 else i[0]
        return tx.Select(tx.binop(B.EQ, cls, t[at]), wt[at] * tx.const(-1, dt) * scale[at],
                         tx.const(0, dt))
    return te.compute(x.shape, grad, name="pred_grad")


def take_backward(g: te.Tensor, x: te.Tensor, indices: te.Tensor, axis: int | None
                  ) -> te.Tensor:
    """d take(x, indices, axis) / d x: each x element sums the output gradients of the
    places that took it."""
    k = [te.reduce_axis(d, f"k{j}") for j, d in enumerate(indices.shape)]
    if axis is None:  # take from the flattened x
        def grad_flat(*i: tx.PrimExpr) -> tx.PrimExpr:
            pos: tx.PrimExpr = tx.const(0, "int64")
            for idx, d in zip(i, x.shape):
                pos = pos * _i64(d) + _i64(idx)
            hit = tx.binop(B.EQ, _i64(indices[tuple(k)]), pos)
            return te.sum(tx.Select(hit, g[tuple(k)], tx.const(0, x.dtype)), axis=k)
        return te.compute(x.shape, grad_flat, name="take_grad")
    axis %= x.ndim

    def grad(*i: tx.PrimExpr) -> tx.PrimExpr:
        at = (*i[:axis], *k, *i[axis + 1:])
        hit = tx.binop(B.EQ, _i64(indices[tuple(k)]), _i64(i[axis]))
        return te.sum(tx.Select(hit, g[at], tx.const(0, x.dtype)), axis=k)
    return te.compute(x.shape, grad, name="take_grad")


def _window_of(v: tx.PrimExpr, r: Any, k: int, pad: Any, strides: Any, dilation: Any,
               out: Any) -> tuple[tx.PrimExpr, tx.PrimExpr]:
    """The output position whose window puts its tap `r` on input position `v` (axis k),
    clamped into range, and whether there is one."""
    num = _i64(v) + pad[k] - _i64(r) * dilation[k]
    q = tx.binop(B.FLOORDIV, num, tx.const(strides[k], "int64"))
    ok = _and(tx.binop(B.GE, num, tx.const(0, "int64")),
              tx.binop(B.EQ, tx.binop(B.FLOORMOD, num, tx.const(strides[k], "int64")),
                       tx.const(0, "int64")),
              tx.binop(B.LT, q, _i64(out)))
    return tx.Select(ok, q, tx.const(0, "int64")), ok


def pool2d_backward(kind: str, g: te.Tensor, x: te.Tensor, pool_size: Any, strides: Any,
                    padding: Any, dilation: Any, ceil_mode: bool, count_include_pad: bool
                    ) -> te.Tensor:
    """d pool2d(x) / d x for NCHW data. max: the gradient goes to the window's first maximal
    element (row-major; ties after relu are common); avg: spread evenly over the window (its
    divisor as the forward's)."""
    oh, ow = g.shape[2], g.shape[3]
    h, w = x.shape[2], x.shape[3]
    p = tuple(padding)
    ry, rx = te.reduce_axis(pool_size[0], "ry"), te.reduce_axis(pool_size[1], "rx")
    zero = tx.const(0, x.dtype)
    first = _first_max(x, pool_size, strides, p, dilation, ceil_mode) \
        if kind == "max" else None

    def grad(n: Any, c: Any, yy: Any, xx: Any) -> tx.PrimExpr:
        sy, oky = _window_of(yy, ry, 0, p, strides, dilation, oh)
        sx, okx = _window_of(xx, rx, 1, p, strides, dilation, ow)
        if first is not None:
            tap = _i64(ry) * pool_size[1] + _i64(rx)
            hit = _and(oky, okx, tx.binop(B.EQ, tap, first[n, c, sy, sx]))
            return te.sum(tx.Select(hit, g[n, c, sy, sx], zero), axis=[ry, rx])
        share = g[n, c, sy, sx] / _divisor(sy, sx, p, strides, pool_size, h, w, x.dtype,
                                           ceil_mode, count_include_pad)
        return te.sum(tx.Select(_and(oky, okx), share, zero), axis=[ry, rx])
    return te.compute(x.shape, grad, name=f"{kind}_pool2d_grad")


def _first_max(x: te.Tensor, pool_size: Any, strides: Any, p: Any, dilation: Any,
               ceil_mode: bool) -> te.Tensor:
    """Per output window, the row-major tap index of its first maximal element (padding
    taps count as -inf, as in the forward)."""
    pooled = pool2d_nchw(x, "max", pool_size, strides, p, dilation, ceil_mode)
    h, w = x.shape[2], x.shape[3]
    ky, kx = te.reduce_axis(pool_size[0], "ky"), te.reduce_axis(pool_size[1], "kx")
    last = tx.const(pool_size[0] * pool_size[1], "int64")

    def first(n: Any, c: Any, oy: Any, ox: Any) -> tx.PrimExpr:
        yy = _i64(oy) * strides[0] + _i64(ky) * dilation[0] - p[0]
        xx = _i64(ox) * strides[1] + _i64(kx) * dilation[1] - p[1]
        inside = _and(tx.binop(B.GE, yy, tx.const(0, "int64")), tx.binop(B.LT, yy, _i64(h)),
                      tx.binop(B.GE, xx, tx.const(0, "int64")), tx.binop(B.LT, xx, _i64(w)))
        zero = tx.const(0, "int64")
        value = tx.Select(inside, x[n, c, tx.Select(inside, yy, zero),
                                    tx.Select(inside, xx, zero)],
                          tx.const(float("-inf"), x.dtype))
        tap = _i64(ky) * pool_size[1] + _i64(kx)
        return te.min(tx.Select(tx.binop(B.EQ, value, pooled[n, c, oy, ox]), tap, last),
                      axis=[ky, kx])
    return te.compute(pooled.shape, first, name="first_max")


def _divisor(sy: Any, sx: Any, p: Any, strides: Any, pool_size: Any, h: Any, w: Any,
             dtype: str, ceil_mode: bool, include_pad: bool) -> tx.PrimExpr:
    """What the forward avg_pool2d (topi.nn.pool2d) divides a window's sum by."""
    if not ceil_mode and (include_pad or not any(p)):
        return tx.const(float(pool_size[0] * pool_size[1]), dtype)

    def along(s: Any, k: int, size: Any) -> tx.PrimExpr:
        start = s * strides[k] - p[k]
        if include_pad:
            return tx.binop(B.MIN, start + pool_size[k], _i64(size) + p[k + 2]) - start
        lo = tx.binop(B.MAX, start, tx.const(0, "int64"))
        return tx.binop(B.MIN, start + pool_size[k], _i64(size)) - lo
    return tx.Cast(dtype, along(sy, 0, h) * along(sx, 1, w))
