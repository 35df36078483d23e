"""3-d neural-network computes (NCDHW data): conv3d (OIDHW), conv3d_transpose (IODHW),
max/avg pooling and adaptive average pooling, as plain te computes."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .nn import _as, pad

B = tx.BinaryOp


def _i64(v: Any) -> tx.PrimExpr:
    return tx.const(v, "int64") if isinstance(v, int) else v


def _static(v: Any) -> int:
    return int(simplify(_i64(v)).value)


def conv3d_ncdhw(data: te.Tensor, weight: te.Tensor, strides: Any, padding: Any,
                 dilation: Any, groups: int = 1, out_dtype: str | None = None) -> te.Tensor:
    dt = out_dtype or data.dtype
    n, _, *size = data.shape
    o, ci, *kernel = weight.shape
    x = pad(data, (0, 0, *padding[:3]), (0, 0, *padding[3:]))
    ks = [_static(k) for k in kernel]
    out = [simplify((size[k] + (padding[k] + padding[k + 3] - dilation[k] * (ks[k] - 1) - 1
                                + strides[k])) // strides[k]) for k in range(3)]
    rc = te.reduce_axis(ci, "rc")
    rk = [te.reduce_axis(kernel[k], f"r{'dyx'[k]}") for k in range(3)]
    per_group = simplify(o // groups)

    def body(b: Any, f: Any, d: Any, y: Any, xx: Any) -> tx.PrimExpr:
        at = (d, y, xx)
        cin = rc if groups == 1 else f // per_group * ci + rc
        idx = [at[k] * strides[k] + rk[k] * dilation[k] for k in range(3)]
        return te.sum(_as(x[(b, cin, *idx)], dt) * _as(weight[(f, rc, *rk)], dt),
                      axis=[rc, *rk])
    return te.compute((n, o, *out), body, name="conv3d_ncdhw")


def conv3d_transpose_ncdhw(data: te.Tensor, weight: te.Tensor, strides: Any, padding: Any,
                           output_padding: Any, dilation: Any, groups: int,
                           out_dtype: str | None) -> te.Tensor:
    """The gradient of conv3d: the input spread `strides` apart, padded, and convolved with the
    weight flipped in space and with its two channel axes swapped."""
    if groups != 1:
        raise NotImplementedError("conv3d_transpose with groups > 1 is not supported yet")
    n, c, *size = data.shape
    _, o, *kernel = weight.shape
    ks = [_static(k) for k in kernel]
    spread = [simplify((size[k] - 1) * strides[k] + 1) for k in range(3)]

    def spread_body(b: Any, ch: Any, d: Any, y: Any, xx: Any) -> tx.PrimExpr:
        at = (d, y, xx)
        on_grid = None
        for k in range(3):
            if strides[k] > 1:
                cond = tx.binop(B.EQ, at[k] % strides[k], tx.const(0, "int64"))
                on_grid = cond if on_grid is None else tx.binop(B.AND, on_grid, cond)
        src = data[(b, ch, *(at[k] // strides[k] if strides[k] > 1 else at[k]
                             for k in range(3)))]
        return src if on_grid is None else te.if_then_else(on_grid, src,
                                                           tx.const(0.0, data.dtype))
    xs = data if all(s == 1 for s in strides) else \
        te.compute((n, c, *spread), spread_body, name="data_dilate")
    before = [dilation[k] * (ks[k] - 1) - padding[k] for k in range(3)]
    after = [dilation[k] * (ks[k] - 1) - padding[k + 3] + output_padding[k] for k in range(3)]
    if min(before + after) < 0:
        raise NotImplementedError(f"conv3d_transpose: padding {tuple(padding)} wider than the "
                                  f"dilated kernel is not supported yet")
    flipped = te.compute((o, c, *kernel), lambda f, ch, d, y, x: weight[
        ch, f, ks[0] - 1 - d, ks[1] - 1 - y, ks[2] - 1 - x], name="kernel_flip")
    return conv3d_ncdhw(xs, flipped, (1, 1, 1), (*before, *after), dilation, 1, out_dtype)


def pool3d(data: te.Tensor, kind: str, pool_size: Any, strides: Any, padding: Any,
           dilation: Any, ceil_mode: bool, count_include_pad: bool) -> te.Tensor:
    n, c, *size = data.shape
    extra = [strides[k] - 1 if ceil_mode else 0 for k in range(3)]
    out = [simplify((size[k] + (padding[k] + padding[k + 3] - dilation[k] * (pool_size[k] - 1)
                                - 1 + strides[k] + extra[k])) // strides[k]) for k in range(3)]
    fill = float("-inf") if kind == "max" else 0.0
    x = pad(data, (0, 0, *padding[:3]),
            (0, 0, *(padding[k + 3] + extra[k] for k in range(3))), fill)
    rk = [te.reduce_axis(pool_size[k], f"r{'dyx'[k]}") for k in range(3)]

    def at(b: Any, f: Any, pos: Any) -> tx.PrimExpr:
        return x[(b, f, *(pos[k] * strides[k] + rk[k] * dilation[k] for k in range(3)))]
    if kind == "max":
        return te.compute((n, c, *out),
                          lambda b, f, d, y, xx: te.max(at(b, f, (d, y, xx)), axis=rk),
                          name="pool_max")
    s = te.compute((n, c, *out),
                   lambda b, f, d, y, xx: te.sum(at(b, f, (d, y, xx)), axis=rk),
                   name="pool_sum")

    def count(v: Any, k: int) -> tx.PrimExpr:
        # windows clipped to the padded input (count_include_pad) or to the input itself
        start = v * strides[k] - padding[k]
        end = tx.binop(B.MIN, start + dilation[k] * (pool_size[k] - 1) + 1,
                       size[k] + (padding[k + 3] if count_include_pad else 0))
        lo = start if count_include_pad else tx.binop(B.MAX, start, tx.const(0, "int64"))
        return (end - lo + dilation[k] - 1) // dilation[k]

    def avg(b: Any, f: Any, d: Any, y: Any, xx: Any) -> tx.PrimExpr:
        p = (d, y, xx)
        area = count(p[0], 0) * count(p[1], 1) * count(p[2], 2)
        return s[(b, f, *p)] / tx.Cast(data.dtype, area)
    return te.compute(s.shape, avg, name="pool_avg")


def adaptive_avg_pool3d(data: te.Tensor, output_size: Any) -> te.Tensor:
    n, c, *size = data.shape
    out = [_i64(s) for s in output_size]

    def bounds(i: Any, k: int) -> tuple[tx.PrimExpr, tx.PrimExpr]:
        start = (i * size[k]) // out[k]
        end = ((i + 1) * size[k] + out[k] - 1) // out[k]
        return start, end - start
    # windows differ in size: reduce over the largest and mask the rest out
    rk = [te.reduce_axis(simplify((size[k] + out[k] - 1) // out[k] + 1), f"r{'dyx'[k]}")
          for k in range(3)]

    def body(b: Any, f: Any, d: Any, y: Any, xx: Any) -> tx.PrimExpr:
        p = (d, y, xx)
        inside, idx = None, []
        for k in range(3):
            st, ln = bounds(p[k], k)
            cond = rk[k] < ln
            inside = cond if inside is None else tx.binop(B.AND, inside, cond)
            idx.append(tx.binop(B.MIN, st + rk[k], size[k] - 1))
        return te.sum(tx.Select(inside, data[(b, f, *idx)], tx.const(0.0, data.dtype)),
                      axis=rk)
    s = te.compute((n, c, *out), body, name="adaptive_pool_sum")

    def avg(b: Any, f: Any, d: Any, y: Any, xx: Any) -> tx.PrimExpr:
        p = (d, y, xx)
        area = bounds(p[0], 0)[1] * bounds(p[1], 1)[1] * bounds(p[2], 2)[1]
        return s[(b, f, *p)] / tx.Cast(data.dtype, area)
    return te.compute(s.shape, avg, name="adaptive_pool_avg")
