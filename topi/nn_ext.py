"""Computes of the newer `R.nn` operators and `image.resize2d`: pad modes, conv1d (as a
height-1 conv2d), conv2d_transpose, group/instance norm, attention, 1-d pools, pixel_shuffle
and resize2d."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from . import nn
from .transform import reshape

B = tx.BinaryOp
I64 = "int64"


def _i(v: Any) -> tx.PrimExpr:
    return tx.const(v, I64) if isinstance(v, int) else v


def _f(v: Any, dtype: str) -> tx.PrimExpr:
    return tx.const(v, dtype) if not isinstance(v, tx.PrimExpr) else (
        v if v.dtype == dtype else tx.Cast(dtype, v))


def _and(*conds: tx.PrimExpr) -> tx.PrimExpr:
    out = conds[0]
    for c in conds[1:]:
        out = tx.binop(B.AND, out, c)
    return out


def pad(x: te.Tensor, widths: tuple[int, ...], mode: str, value: float) -> te.Tensor:
    before, after = widths[0::2], widths[1::2]
    if mode == "constant":
        return nn.pad(x, before, after, value, name="PadInput")
    shape = tuple(simplify(d + b + a) for d, b, a in zip(x.shape, before, after))

    def src(v: tx.PrimExpr, b: int, d: tx.PrimExpr) -> tx.PrimExpr:
        j = v - b
        if mode == "edge":
            return tx.binop(B.MIN, tx.binop(B.MAX, j, _i(0)), d - 1)
        j = tx.Select(tx.binop(B.LT, j, _i(0)), _i(0) - j, j)  # reflect (edge not repeated)
        return tx.Select(tx.binop(B.GT, j, d - 1), (d - 1) * 2 - j, j)
    return te.compute(shape, lambda *i: x[tuple(src(v, b, d) for v, b, d in zip(
        i, before, x.shape))], name="T_pad")


def conv1d(x: te.Tensor, w: te.Tensor, strides: Any, padding: Any, dilation: Any, groups: int,
           out_dtype: str | None) -> te.Tensor:
    x4 = reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    w4 = reshape(w, (w.shape[0], w.shape[1], 1, w.shape[2]))
    out = nn.conv2d_nchw(x4, w4, (1, strides[0]), (0, padding[0], 0, padding[1]),
                         (1, dilation[0]), groups, out_dtype)
    return reshape(out, (out.shape[0], out.shape[1], out.shape[3]))


def conv2d_transpose(x: te.Tensor, w: te.Tensor, out_shape: Any, strides: Any, padding: Any,
                     dilation: Any, groups: int, out_dtype: str) -> te.Tensor:
    """out[n, o, y, x] sums x[n, c, iy, ix] * w[c, o, ky, kx] over the (c, ky, kx) with
    iy * stride = y + pad - ky * dilation (and likewise for x)."""
    cin_g = simplify(x.shape[1] // groups)
    out_g = w.shape[1]
    rc, ry, rx = te.reduce_axis(cin_g, "rc"), te.reduce_axis(w.shape[2], "ry"), \
        te.reduce_axis(w.shape[3], "rx")

    def body(b: Any, o: Any, y: Any, xx: Any) -> tx.PrimExpr:
        ny = y + padding[0] - ry * dilation[0]
        nx = xx + padding[1] - rx * dilation[1]
        iy, ix = tx.binop(B.FLOORDIV, ny, _i(strides[0])), tx.binop(B.FLOORDIV, nx,
                                                                    _i(strides[1]))
        ok = _and(tx.binop(B.EQ, tx.binop(B.FLOORMOD, ny, _i(strides[0])), _i(0)),
                  tx.binop(B.EQ, tx.binop(B.FLOORMOD, nx, _i(strides[1])), _i(0)),
                  tx.binop(B.GE, ny, _i(0)), tx.binop(B.GE, nx, _i(0)),
                  tx.binop(B.LT, iy, x.shape[2]), tx.binop(B.LT, ix, x.shape[3]))
        c = rc if groups == 1 else tx.binop(B.FLOORDIV, o, out_g) * cin_g + rc
        oo = o if groups == 1 else tx.binop(B.FLOORMOD, o, out_g)
        prod = _f(x[b, c, iy, ix], out_dtype) * _f(w[c, oo, ry, rx], out_dtype)
        return te.sum(te.if_then_else(ok, prod, tx.const(0, out_dtype)), axis=[rc, ry, rx])
    return te.compute(out_shape, body, name="conv2d_transpose_nchw")


def group_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, groups: int, ch: int,
               axes: tuple[int, ...], eps: float, center: bool, scale: bool) -> te.Tensor:
    ch %= x.ndim
    axes = tuple(a % x.ndim for a in axes)
    per = simplify(x.shape[ch] // groups)
    keep = [a for a in range(x.ndim) if a != ch and a not in axes]
    stat_shape = tuple(x.shape[a] for a in keep) + (groups,)
    count = tx.const(1, I64) * per
    for a in axes:
        count = count * x.shape[a]
    count = simplify(count)

    def source(i: tuple[Any, ...], rc: Any, raxes: list[Any]) -> tuple[Any, ...]:
        idx: list[Any] = [None] * x.ndim
        for a, v in zip(keep, i[:-1]):
            idx[a] = v
        for a, r in zip(axes, raxes):
            idx[a] = r
        idx[ch] = i[-1] * per + rc
        return tuple(idx)

    def reduction(f: Any, name: str) -> te.Tensor:
        def body(*i: tx.PrimExpr) -> tx.PrimExpr:
            rc = te.reduce_axis(per, "rc")
            raxes = [te.reduce_axis(x.shape[a], f"r{a}") for a in axes]
            return te.sum(f(i, x[source(i, rc, raxes)]), axis=[rc, *raxes])
        return te.compute(stat_shape, body, name=name)
    total = reduction(lambda i, v: v, "T_group_sum")
    mean = te.compute(stat_shape, lambda *i: total[i] / _f(count, x.dtype), name="T_group_mean")
    sq = reduction(lambda i, v: (v - mean[i]) * (v - mean[i]), "T_group_sq")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        at = tuple(i[a] for a in keep) + (tx.binop(B.FLOORDIV, i[ch], per),)
        inv = tx.Call(x.dtype, "tir.rsqrt", (sq[at] / _f(count, x.dtype) + _f(eps, x.dtype),))
        v = (x[i] - mean[at]) * inv
        v = v * gamma[(i[ch],)] if scale else v
        return v + beta[(i[ch],)] if center else v
    return te.compute(x.shape, body, name="T_group_norm")


def attention(q: te.Tensor, k: te.Tensor, v: te.Tensor, bias: te.Tensor | None,
              scale: float | None, causal: str | None) -> te.Tensor:
    bsz, s_q, heads, dim = q.shape
    s_kv = k.shape[1]
    dt = q.dtype
    sc = _f(scale, dt) if scale is not None else tx.Call(dt, "tir.rsqrt", (_f(dim, dt),))
    rh = te.reduce_axis(dim, "rh")

    def score(b: Any, n: Any, s: Any, t: Any) -> tx.PrimExpr:
        return te.sum(q[b, s, n, rh] * k[b, t, n, rh], axis=rh)
    raw = te.compute((bsz, heads, s_q, s_kv), score, name="T_attention_qk")

    def masked(b: Any, n: Any, s: Any, t: Any) -> tx.PrimExpr:
        val = raw[b, n, s, t] * sc
        if bias is not None:
            lead = 4 - bias.ndim
            idx = (b, n, s, t)[lead:]
            val = val + bias[tuple(_i(0) if isinstance(simplify(d), tx.IntImm) and
                                   simplify(d).value == 1 else j
                                   for d, j in zip(bias.shape, idx))]
        if causal is None:
            return val
        limit = s if causal == "TopLeft" else s + (s_kv - s_q)
        return tx.Select(tx.binop(B.LE, t, limit), val, te.min_value(dt))
    logits = te.compute(raw.shape, masked, name="T_attention_logits")
    rt = te.reduce_axis(s_kv, "rt")
    top = te.compute(raw.shape[:3], lambda b, n, s: te.max(logits[b, n, s, rt], axis=rt),
                     name="T_attention_max")
    expo = te.compute(raw.shape, lambda b, n, s, t: tx.Call(dt, "tir.exp", (
        logits[b, n, s, t] - top[b, n, s],)), name="T_attention_exp")
    rt2 = te.reduce_axis(s_kv, "rt2")
    denom = te.compute(raw.shape[:3], lambda b, n, s: te.sum(expo[b, n, s, rt2], axis=rt2),
                       name="T_attention_sum")
    rt3 = te.reduce_axis(s_kv, "rt3")
    return te.compute((bsz, s_q, heads, v.shape[3]), lambda b, s, n, h: te.sum(
        expo[b, n, s, rt3] / denom[b, n, s] * v[b, rt3, n, h], axis=rt3), name="T_attention")


def pool1d(x: te.Tensor, kind: str, size: Any, strides: Any, padding: Any, dilation: Any,
           ceil_mode: bool, count_include_pad: bool) -> te.Tensor:
    x4 = reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    out = nn.pool2d_nchw(x4, kind, (1, size[0]), (1, strides[0]), (0, padding[0], 0, padding[1]),
                    (1, dilation[0]), ceil_mode, count_include_pad)
    return reshape(out, (out.shape[0], out.shape[1], out.shape[3]))


def adaptive_avg_pool1d(x: te.Tensor, size: Any) -> te.Tensor:
    x4 = reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    out = nn.adaptive_pool(x4, (1, size))
    return reshape(out, (out.shape[0], out.shape[1], out.shape[3]))


def pixel_shuffle(x: te.Tensor, r: int) -> te.Tensor:
    n, c, h, w = x.shape
    shape = (n, simplify(c // (r * r)), simplify(h * r), simplify(w * r))

    def body(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        ry, rx = tx.binop(B.FLOORMOD, y, _i(r)), tx.binop(B.FLOORMOD, xx, _i(r))
        return x[b, f * (r * r) + ry * r + rx, tx.binop(B.FLOORDIV, y, _i(r)),
                 tx.binop(B.FLOORDIV, xx, _i(r))]
    return te.compute(shape, body, name="T_pixel_shuffle")


def _source_coord(out_i: tx.PrimExpr, in_n: tx.PrimExpr, out_n: tx.PrimExpr, mode: str
                  ) -> tx.PrimExpr:
    o, i_n, o_n = _f(out_i, "float32"), _f(in_n, "float32"), _f(out_n, "float32")
    if mode == "align_corners":
        return tx.Select(tx.binop(B.GT, out_n, _i(1)),
                         o * (i_n - _f(1.0, "float32")) / (o_n - _f(1.0, "float32")),
                         _f(0.0, "float32"))
    ratio = i_n / o_n
    if mode == "asymmetric":
        return o * ratio
    half = (o + _f(0.5, "float32")) * ratio - _f(0.5, "float32")
    if mode == "pytorch_half_pixel":
        return tx.Select(tx.binop(B.GT, out_n, _i(1)), half, _f(0.0, "float32"))
    return half


def _floor_i64(v: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Cast(I64, tx.Call("float32", "tir.floor", (v,)))


def _nearest(v: tx.PrimExpr, rounding: str, n: tx.PrimExpr) -> tx.PrimExpr:
    f32 = "float32"
    if rounding == "round":  # ties to even, as TVM's te.round (nearbyint)
        j = tx.Cast(I64, tx.Call(f32, "tir.round", (v,)))
    elif rounding == "round_prefer_ceil":
        j = _floor_i64(v + _f(0.5, f32))
    elif rounding == "round_prefer_floor":
        j = tx.Cast(I64, tx.Call(f32, "tir.ceil", (v - _f(0.5, f32),)))
    elif rounding == "ceil":
        j = tx.Cast(I64, tx.Call(f32, "tir.ceil", (v,)))
    else:
        j = _floor_i64(v)
    return tx.binop(B.MIN, tx.binop(B.MAX, j, _i(0)), n - 1)


def resize2d(x: te.Tensor, size: Any, method: str, coords: str, rounding: str, out_dtype: str
             ) -> te.Tensor:
    n, c, h, w = x.shape
    oh, ow = _i(size[0]), _i(size[1])
    if method == "nearest_neighbor" and coords != "align_corners" and not rounding:
        rounding = "floor"  # TVM's default for nearest without align_corners

    def body(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        sy, sx = _source_coord(y, h, oh, coords), _source_coord(xx, w, ow, coords)
        if method == "nearest_neighbor":
            return _f(x[b, f, _nearest(sy, rounding, h), _nearest(sx, rounding, w)], out_dtype)
        y0, x0 = _floor_i64(sy), _floor_i64(sx)
        dy, dx = sy - _f(y0, "float32"), sx - _f(x0, "float32")

        def at(yy: tx.PrimExpr, xc: tx.PrimExpr) -> tx.PrimExpr:
            yy = tx.binop(B.MIN, tx.binop(B.MAX, yy, _i(0)), h - 1)
            xc = tx.binop(B.MIN, tx.binop(B.MAX, xc, _i(0)), w - 1)
            return _f(x[b, f, yy, xc], "float32")
        one = _f(1.0, "float32")
        top = at(y0, x0) * (one - dx) + at(y0, x0 + 1) * dx
        bottom = at(y0 + 1, x0) * (one - dx) + at(y0 + 1, x0 + 1) * dx
        return _f(top * (one - dy) + bottom * dy, out_dtype)
    return te.compute((n, c, oh, ow), body, name="resize")
