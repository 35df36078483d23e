"""`topi.nn`: neural-network computes on te tensors (NCHW data, OIHW weights)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ... import te
from ...tir import expr as tx
from ...tir.functor import simplify
from .. import transform as T
from ..conv2d_flat import conv2d_nchw_flat
from ..epilogue import apply_epilogue
from ..conv2d_schedule import column_reader, conv2d_nchw_nest, parallel_copy
from ..matmul_packed import matmul_packed, pack_in_kernel, panel_lanes, should_pack
from ..matmul_schedule import matmul_nest

B = tx.BinaryOp


def relu(x: te.Tensor) -> te.Tensor:
    return te.compute(x.shape, lambda *i: tx.binop(B.MAX, x[i], tx.const(0, x.dtype)),
                      name="T_relu")


def gelu(x: te.Tensor) -> te.Tensor:
    """x * 0.5 * (1 + erf(x / sqrt(2))), as TVM's legalization."""
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[i]
        e = tx.Call(x.dtype, "tir.erf", (v * tx.const(0.7071067811865476, x.dtype),))
        return v * (tx.const(0.5, x.dtype) + e * tx.const(0.5, x.dtype))
    return te.compute(x.shape, body, name="T_gelu")


def gelu_tanh(x: te.Tensor) -> te.Tensor:
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[i]
        inner = (v + v * v * v * tx.const(0.044715, x.dtype)) * tx.const(0.7978845608028654,
                                                                           x.dtype)
        t = tx.Call(x.dtype, "tir.tanh", (inner,))
        return v * tx.const(0.5, x.dtype) * (tx.const(1.0, x.dtype) + t)
    return te.compute(x.shape, body, name="T_gelu_tanh")


def silu(x: te.Tensor) -> te.Tensor:
    return te.compute(x.shape, lambda *i: x[i] * tx.Call(x.dtype, "tir.sigmoid", (x[i],)),
                      name="T_silu")


def dense(data: te.Tensor, weight: te.Tensor, bias: te.Tensor | None = None,
          out_dtype: str | None = None) -> te.Tensor:
    """data (M, K) x weight (N, K)^T (+ bias (N,))."""
    k = te.reduce_axis(data.shape[-1], "k")
    dt = out_dtype or data.dtype
    mm = te.compute((data.shape[0], weight.shape[0]),
                    lambda i, j: te.sum(_as(data[i, k], dt) * _as(weight[j, k], dt), axis=k),
                    name="T_matmul_NT")
    if bias is None:
        return mm
    return te.compute(mm.shape, lambda i, j: mm[i, j] + bias[j], name="T_add")


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def matmul(a: te.Tensor, b: te.Tensor, transpose_a: bool = False, transpose_b: bool = False,
           out_dtype: str | None = None) -> te.Tensor:
    """Batched matmul with numpy broadcasting of the batch dims and 1-d operands."""
    dt = out_dtype or a.dtype
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    ka = a.shape[-2] if transpose_a and not a_vec else a.shape[-1]
    sa = ((tx.const(1, "int64"),) + a.shape) if a_vec else a.shape
    sb = (b.shape + (tx.const(1, "int64"),)) if b_vec else b.shape
    batch = T.broadcast_shape(sa[:-2], sb[:-2])
    m = sa[-1] if transpose_a else sa[-2]
    n = sb[-2] if transpose_b else sb[-1]
    shape = batch + ((m,) if not a_vec else ()) + ((n,) if not b_vec else ())
    nb = len(batch)

    def product(idx: tuple[Any, ...], k: Any) -> tx.PrimExpr:
        bi = idx[:nb]
        i = idx[nb] if not a_vec else None
        j = idx[-1] if not b_vec else None
        av = a[(k,)] if a_vec else _read(a, bi, (k, i) if transpose_a else (i, k))
        bv = b[(k,)] if b_vec else _read(b, bi, (j, k) if transpose_b else (k, j))
        return _as(av, dt) * _as(bv, dt)

    kext = simplify(ka)
    if b_vec or transpose_b:  # B is read along k: the dot product is the inner loop
        k = te.reduce_axis(ka, "k")
        return te.compute(shape, lambda *idx: te.sum(product(idx, k), axis=k), name="T_matmul")
    if not a_vec and not transpose_a and b.ndim == 2 and _packs(a, b, dt):
        return matmul_packed(a, pack_in_kernel(b, panel_lanes(int(b.shape[1].value), dt)),
                             out_dtype)
    if not a_vec:  # the register-blocked rule when the shapes are static
        k = te.reduce_axis(ka, "k")
        out = te.compute(shape, lambda *idx: te.sum(product(idx, k), axis=k), name="T_matmul")
        if matmul_nest(out, b_shared=b.ndim == 2):
            return out
    if not (isinstance(kext, tx.IntImm) and kext.value % _RF == 0 and kext.value >= 16 * _RF):
        k = te.reduce_axis(ka, "k")
        out = te.compute(shape, lambda *idx: te.sum(product(idx, k), axis=k), name="T_matmul")
        _row_nest(out, [out.op.reduce_axis[0].name])
        return out
    # B is read along its rows (j): loop `i, k, j` so the inner loop streams a row of B into a
    # row of the output instead of walking B down a column. To keep the accuracy of a
    # vectorized dot product (several partial sums), the k loop is split in _RF interleaved
    # partial sums (TVM's rfactor): T_matmul_rf[.., l, j] = sum over ko of the products at
    # k = ko * _RF + l, then T_matmul sums the _RF partials.
    ko = te.reduce_axis(kext.value // _RF, "ko")
    p = nb + (0 if a_vec else 1)  # position of the partial-sum axis

    def rf_body(*idx: tx.PrimExpr) -> tx.PrimExpr:
        k = ko * tx.const(_RF, "int64") + idx[p]
        return te.sum(product(idx[:p] + idx[p + 1:], k), axis=ko)
    rf = te.compute(shape[:p] + (tx.const(_RF, "int64"),) + shape[p:], rf_body,
                    name="T_matmul_rf")
    names = [ax.name for ax in rf.op.axis]
    _row_nest(rf, ["ko", names[p]], names[:p] + names[p + 1:])
    lane = te.reduce_axis(_RF, "l")
    out = te.compute(shape, lambda *idx: te.sum(rf[idx[:p] + (lane,) + idx[p:]], axis=lane),
                     name="T_matmul")
    _row_nest(out, ["l"])
    return out


def _packs(a: te.Tensor, b: te.Tensor, dtype: str) -> bool:
    """Whether `a @ b` (b 2-D, same dtypes) reads B from panels packed inside the kernel."""
    dims = [simplify(d) for d in (*a.shape[:-1], b.shape[1], b.shape[0])]
    if not (a.dtype == b.dtype == dtype and all(isinstance(d, tx.IntImm) for d in dims)):
        return False
    *rows, n, k = (d.value for d in dims)  # type: ignore[union-attr]
    return should_pack(math.prod(rows), n, k, dtype)


_RF = 16  # partial sums of a matmul whose right operand is read along its rows


def _row_nest(out: te.Tensor, middle: list[str], outer: list[str] | None = None) -> None:
    """Loops `outer[:-1], middle, outer[-1]` (the row axis innermost; outer defaults to the
    compute's axes), the row vectorized in chunks of up to 64 lanes when its length is
    static. Each output element still sums over the reduction in order, from zero."""
    names = outer if outer is not None else [a.name for a in out.op.axis]
    n = simplify(out.shape[-1])
    width = next((v for v in (64, 48, 32, 16, 8) if isinstance(n, tx.IntImm) and
                  n.value % v == 0), 0)
    j = names[-1]
    if not width:
        te.loop_nest(out, [*names[:-1], *middle, j])
    elif width == n.value:
        te.loop_nest(out, [*names[:-1], *middle, j], kinds={j: "vectorized"})
    else:
        te.loop_nest(out, [*names[:-1], *middle, f"{j}.o", f"{j}.i"], {j: width},
                     {f"{j}.i": "vectorized"})


def _read(t: te.Tensor, batch: tuple[Any, ...], last: tuple[Any, ...]) -> tx.PrimExpr:
    nb = t.ndim - 2
    lead = batch[len(batch) - nb:] if nb else ()
    bi = tuple(tx.const(0, "int64") if T._is_one(d) else v for d, v in zip(t.shape[:nb], lead))
    return t[bi + last]


def softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    axis %= x.ndim
    mx = T.max(x, axis, keepdims=True)
    ex = te.compute(x.shape, lambda *i: tx.Call(x.dtype, "tir.exp", (x[i] - mx[_at0(i, axis)],)),
                    name="T_softmax_exp")
    s = T.sum(ex, axis, keepdims=True)
    return te.compute(x.shape, lambda *i: ex[i] / s[_at0(i, axis)], name="T_softmax_norm")


def log_softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    axis %= x.ndim
    mx = T.max(x, axis, keepdims=True)
    ex = te.compute(x.shape, lambda *i: tx.Call(x.dtype, "tir.exp", (x[i] - mx[_at0(i, axis)],)),
                    name="T_softmax_exp")
    s = T.sum(ex, axis, keepdims=True)
    return te.compute(x.shape, lambda *i: x[i] - mx[_at0(i, axis)] - tx.Call(
        x.dtype, "tir.log", (s[_at0(i, axis)],)), name="compute")


def _at0(i: tuple[Any, ...], axes: Any) -> tuple[Any, ...]:
    axes = (axes,) if isinstance(axes, int) else axes
    return tuple(tx.const(0, "int64") if a in axes else v for a, v in enumerate(i))


def layer_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, axes: Any, epsilon: float,
               center: bool = True, scale: bool = True) -> te.Tensor:
    axes = sorted(a % x.ndim for a in axes)
    mean = T.mean(x, axes, keepdims=True)
    dev = te.compute(x.shape, lambda *i: (x[i] - mean[_at0(i, axes)]) *
                     (x[i] - mean[_at0(i, axes)]), name="T_sq_dev")
    var = T.mean(dev, axes, keepdims=True)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        inv = tx.Call(x.dtype, "tir.rsqrt", (var[_at0(i, axes)] + tx.const(epsilon, x.dtype),))
        v = (x[i] - mean[_at0(i, axes)]) * inv
        p = tuple(i[a] for a in axes)
        v = v * gamma[p] if scale else v
        return v + beta[p] if center else v
    return te.compute(x.shape, body, name="T_layer_norm")


def rms_norm(x: te.Tensor, weight: te.Tensor, axes: Any, epsilon: float) -> te.Tensor:
    axes = sorted(a % x.ndim for a in axes)
    sq = te.compute(x.shape, lambda *i: x[i] * x[i], name="T_sq")
    ms = T.mean(sq, axes, keepdims=True)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        inv = tx.Call(x.dtype, "tir.rsqrt", (ms[_at0(i, axes)] + tx.const(epsilon, x.dtype),))
        return x[i] * inv * weight[tuple(i[a] for a in axes)]
    return te.compute(x.shape, body, name="T_rms_norm")


def batch_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, mean: te.Tensor,
               var: te.Tensor, axis: int, epsilon: float, center: bool = True,
               scale: bool = True) -> te.Tensor:
    """Inference batch norm: normalized with the moving statistics."""
    axis %= x.ndim

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        c = i[axis]
        inv = tx.Call(x.dtype, "tir.rsqrt", (var[c] + tx.const(epsilon, x.dtype),))
        v = (x[i] - mean[c]) * inv
        v = v * gamma[c] if scale else v
        return v + beta[c] if center else v
    return te.compute(x.shape, body, name="T_batch_norm")


def batch_norm_training(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, mean: te.Tensor,
                        var: te.Tensor, axis: int, epsilon: float, center: bool, scale: bool,
                        momentum: float) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    """Training batch norm: normalized with the batch's mean and (biased) variance; the moving
    statistics come back as `(1 - momentum) * moving + momentum * batch`."""
    axis %= x.ndim
    others = [a for a in range(x.ndim) if a != axis]
    batch_mean = T.mean(x, others)
    centered = te.compute(x.shape, lambda *i: x[i] - batch_mean[i[axis]], name="T_subtract")
    squares = te.compute(x.shape, lambda *i: centered[i] * centered[i], name="T_multiply")
    batch_var = T.mean(squares, others)
    normed = batch_norm(x, gamma, beta, batch_mean, batch_var, axis, epsilon, center, scale)
    keep, take = tx.const(1.0 - momentum, x.dtype), tx.const(momentum, x.dtype)

    def update(moving: te.Tensor, batch: te.Tensor, name: str) -> te.Tensor:
        return te.compute(moving.shape, lambda c: moving[c] * keep + batch[c] * take, name=name)
    return (normed, update(mean, batch_mean, "T_moving_mean"),
            update(var, batch_var, "T_moving_var"))


def pad(x: te.Tensor, before: Any, after: Any, value: float = 0.0, name: str = "pad_temp"
        ) -> te.Tensor:
    if all(int(b) == 0 for b in before) and all(int(a) == 0 for a in after):
        return x
    shape = tuple(simplify(d + b + a) for d, b, a in zip(x.shape, before, after))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        conds = [c for v, b, a, d in zip(i, before, after, x.shape) if b or a
                 for c in ((v >= b, v < d + b) if b else (v < d,))]
        inside = conds[0]
        for c in conds[1:]:
            inside = tx.binop(B.AND, inside, c)
        src = tuple(v - b if b else v for v, b in zip(i, before))
        return te.if_then_else(inside, x[src], tx.const(value, x.dtype))
    return te.compute(shape, body, name=name)


def conv2d_nchw(data: te.Tensor, weight: te.Tensor, strides: Any, padding: Any, dilation: Any,
                groups: int = 1, out_dtype: str | None = None,
                epilogue: Callable[..., tx.PrimExpr] | None = None) -> te.Tensor:
    """`epilogue(v, b, f, y, x)` (tvmlite, see topi/epilogue.py) finishes each output."""
    dt = out_dtype or data.dtype
    n, c, h, w = data.shape
    o, ci, kh, kw = weight.shape
    p = tuple(padding) if len(padding) == 4 else tuple(padding) * 2
    flat = conv2d_nchw_flat(data, weight, (int(strides[0]), int(strides[1])),
                            tuple(int(v) for v in p), dilation, groups, dt, epilogue)
    if flat is not None:  # narrow maps: vectors along the flattened image
        return flat
    x = pad(data, (0, 0, p[0], p[1]), (0, 0, p[2], p[3]))
    if x is not data:
        parallel_copy(x)
    span_h = dilation[0] * (int(simplify(kh).value) - 1) + 1
    span_w = dilation[1] * (int(simplify(kw).value) - 1) + 1
    oh = simplify((h + (p[0] + p[2] - span_h + strides[0])) // strides[0])
    ow = simplify((w + (p[1] + p[3] - span_w + strides[1])) // strides[1])
    rc, ry, rx = te.reduce_axis(ci, "rc"), te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")
    per_group = simplify(o // groups)

    def body(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        cin = rc if groups == 1 else f // per_group * ci + rc
        v = read(b, cin, y * strides[0] + ry * dilation[0], xx, rx * dilation[1])
        return te.sum(_as(v, dt) * _as(weight[f, rc, ry, rx], dt), axis=[rc, ry, rx])
    depthwise = groups != 1 and T._is_one(simplify(ci))
    read, contiguous = column_reader(x, int(strides[1]))
    out = te.compute((n, o, oh, ow), body, name="conv2d_nchw")
    conv2d_nchw_nest(out, contiguous, depthwise)
    return out if epilogue is None else apply_epilogue(out, epilogue)


def pool2d_nchw(data: te.Tensor, kind: str, pool_size: Any, strides: Any, padding: Any,
           dilation: Any, ceil_mode: bool = False, count_include_pad: bool = False
           ) -> te.Tensor:
    n, c, h, w = data.shape
    p = tuple(padding)
    extra = [strides[k] - 1 if ceil_mode else 0 for k in range(2)]
    oh = simplify((h + (p[0] + p[2] - dilation[0] * (pool_size[0] - 1) - 1 + strides[0]
                        + extra[0])) // strides[0])
    ow = simplify((w + (p[1] + p[3] - dilation[1] * (pool_size[1] - 1) - 1 + strides[1]
                        + extra[1])) // strides[1])
    hi = (p[2] + extra[0], p[3] + extra[1])
    fill = float("-inf") if kind == "max" else 0.0
    x = pad(data, (0, 0, p[0], p[1]), (0, 0, hi[0], hi[1]), fill)
    ry, rx = te.reduce_axis(pool_size[0], "ry"), te.reduce_axis(pool_size[1], "rx")

    def at(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        return x[b, f, y * strides[0] + ry * dilation[0], xx * strides[1] + rx * dilation[1]]
    if kind == "max":
        return te.compute((n, c, oh, ow), lambda b, f, y, xx: te.max(at(b, f, y, xx),
                                                                     axis=[ry, rx]),
                          name="pool_max")
    s = te.compute((n, c, oh, ow), lambda b, f, y, xx: te.sum(at(b, f, y, xx), axis=[ry, rx]),
                   name="pool_sum")
    if not ceil_mode and (count_include_pad or not any(p)):  # every window is whole
        area = tx.const(float(pool_size[0] * pool_size[1]), data.dtype)
        return te.compute(s.shape, lambda *i: s[i] / area, name="pool_avg")

    def avg(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        # NOTE: PyTorch's divisor: the window clipped to the padded input (count_include_pad)
        # or to the input itself; ceil_mode windows may hang past both
        def count(v: Any, k: int, size: Any) -> tx.PrimExpr:
            start = v * strides[k] - p[k]
            if count_include_pad:
                return tx.binop(B.MIN, start + pool_size[k], size + p[k + 2]) - start
            lo = tx.binop(B.MAX, start, tx.const(0, "int64"))
            return tx.binop(B.MIN, start + pool_size[k], size) - lo
        area = count(y, 0, h) * count(xx, 1, w)
        return s[b, f, y, xx] / tx.Cast(data.dtype, area)
    return te.compute(s.shape, avg, name="pool_avg")


def adaptive_pool(data: te.Tensor, output_size: Any, pool_type: str = "avg",
                  layout: str = "NCHW") -> te.Tensor:
    """TVM's adaptive pooling of NCHW data: output cell (y, x) pools the input rows
    [y*H//oh, ceil((y+1)*H/oh)) and the columns likewise."""
    if layout != "NCHW" or pool_type not in ("avg", "max"):
        raise ValueError(f"adaptive_pool supports NCHW 'avg' / 'max' pooling, not {layout!r} "
                         f"{pool_type!r}")
    n, c, h, w = data.shape
    oh, ow = (tx.const(s, "int64") if isinstance(s, int) else s for s in output_size)

    def bounds(i: Any, size: Any, out: Any) -> tuple[tx.PrimExpr, tx.PrimExpr]:
        start = (i * size) // out
        end = ((i + 1) * size + out - 1) // out
        return start, end - start
    # NOTE: windows have different sizes; reduce over the largest and mask the rest out.
    kh = simplify((h + oh - 1) // oh + 1)
    kw = simplify((w + ow - 1) // ow + 1)
    ry, rx = te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")

    def body(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        sy, ly = bounds(y, h, oh)
        sx, lx = bounds(xx, w, ow)
        inside = tx.binop(B.AND, ry < ly, rx < lx)
        yy = tx.binop(B.MIN, sy + ry, h - 1)
        xw = tx.binop(B.MIN, sx + rx, w - 1)
        if pool_type == "max":
            return te.max(tx.Select(inside, data[b, f, yy, xw], te.min_value(data.dtype)),
                          axis=[ry, rx])
        return te.sum(tx.Select(inside, data[b, f, yy, xw], tx.const(0, data.dtype)),
                      axis=[ry, rx])
    if pool_type == "max":
        return te.compute((n, c, oh, ow), body, name="adaptive_pool_max")
    s = te.compute((n, c, oh, ow), body, name="adaptive_pool_sum")

    def avg(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        _, ly = bounds(y, h, oh)
        _, lx = bounds(xx, w, ow)
        return s[b, f, y, xx] / tx.Cast(data.dtype, ly * lx)
    return te.compute(s.shape, avg, name="adaptive_pool_avg")


from .pooling import global_pool  # noqa: E402,F401 (TVM's name; pooling reads pool2d above)
from .pooling import pool2d  # noqa: E402,F401 (TVM's signature; pool2d_nchw above is ours)
from .tvm_entries import conv2d, upsampling  # noqa: E402,F401
