"""TVM's plain forms of padding and convolution of any rank and layout (topi.nn.pad, conv).

TVM pads the data into a `pad_temp` block (a copy when nothing is padded), then sums over the
input channels and the kernel window in one `conv<k>d_<layout>` block (`group_conv...` with
groups). topi/nn.py keeps the scheduled conv2d the build pipeline compiles.
"""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify

B = tx.BinaryOp


def _i(v: Any) -> tx.PrimExpr:
    return tx.const(v, "int64") if isinstance(v, int) else v


def _static(e: tx.PrimExpr) -> int | None:
    e = simplify(e)
    return e.value if isinstance(e, tx.IntImm) else None


def mul(a: tx.PrimExpr, b: Any) -> tx.PrimExpr:
    """a * b, folding a factor of one (TVM's operators do)."""
    return a if _static(_i(b)) == 1 else a * _i(b)


def add(a: tx.PrimExpr, b: Any) -> tx.PrimExpr:
    return a if _static(_i(b)) == 0 else a + _i(b)


def floordiv(a: tx.PrimExpr, b: Any) -> tx.PrimExpr:
    return a if _static(_i(b)) == 1 else tx.binop(B.FLOORDIV, a, _i(b))


def pad(x: te.Tensor, before: Any, after: Any, value: float = 0.0, name: str = "PadInput"
        ) -> te.Tensor:
    """TVM's topi.nn.pad: `b <= i` where a dim is padded before, `i < b + n` where after."""
    before = [_i(b) for b in before] + [_i(0)] * (x.ndim - len(before))
    after = [_i(a) for a in after] + [_i(0)] * (x.ndim - len(after))
    shape = tuple(simplify(d + b + a) for d, b, a in zip(x.shape, before, after))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        conds: list[tx.PrimExpr] = []
        src = []
        for v, b, a, d in zip(i, before, after, x.shape):
            if _static(b) != 0:
                conds.append(tx.binop(B.LE, b, v))
                src.append(v - b)
            else:
                src.append(v)
            if _static(a) != 0:
                conds.append(tx.binop(B.LT, v, simplify(b + d)))
        if not conds:
            return x[tuple(src)]
        inside = conds[0]
        for c in conds[1:]:
            inside = tx.binop(B.AND, inside, c)
        return te.if_then_else(inside, x[tuple(src)], tx.const(value, x.dtype))
    return te.compute(shape, body, name=name)


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def conv(data: te.Tensor, weight: te.Tensor, strides: Any, padding: Any, dilation: Any,
         groups: int, data_layout: str, kernel_layout: str, out_dtype: str | None
         ) -> te.Tensor:
    """TVM's topi.nn.conv for any number of spatial dims (`NCHW`, `NHWC`, `NCW`, ...)."""
    dt = out_dtype or data.dtype
    spatial = [ch for ch in data_layout if ch not in "NC"]
    k = len(spatial)
    pos = {ch: data_layout.index(ch) for ch in data_layout}
    kpos = {ch: kernel_layout.index(ch) for ch in kernel_layout}
    pads = list(padding) if len(padding) == 2 * k else list(padding) * 2
    before, after = [0] * data.ndim, [0] * data.ndim
    for s, ch in enumerate(spatial):
        before[pos[ch]], after[pos[ch]] = pads[s], pads[s + k]
    padded = pad(data, before, after, 0.0, name="pad_temp")
    chans = data.shape[pos["C"]]
    per_group_in = simplify(floordiv(chans, groups))
    filters = weight.shape[kpos["O"]]
    per_group_out = simplify(floordiv(filters, groups))
    ksize = [weight.shape[kpos[ch]] for ch in spatial]
    out_sp = [_window_out(data.shape[pos[ch]], ksize[s], strides[s], pads[s] + pads[s + k],
                          dilation[s]) for s, ch in enumerate(spatial)]
    rc = te.reduce_axis(per_group_in, "rc")
    rs = [te.reduce_axis(ksize[s], f"r{ch.lower()}") for s, ch in enumerate(spatial)]
    shape = [data.shape[0] if ch == "N" else filters if ch == "C" else out_sp[spatial.index(ch)]
             for ch in data_layout]

    def body(*o: tx.PrimExpr) -> tx.PrimExpr:
        f = o[pos["C"]]
        cin = rc if groups == 1 else mul(floordiv(f, per_group_out), per_group_in) + rc
        src = []
        for ch in data_layout:
            if ch == "N":
                src.append(o[pos["N"]])
            elif ch == "C":
                src.append(cin)
            else:
                s = spatial.index(ch)
                src.append(mul(o[pos[ch]], strides[s]) + mul(rs[s], dilation[s]))
        widx = {"O": f, "I": rc, **{ch: rs[s] for s, ch in enumerate(spatial)}}
        w = weight[tuple(widx[ch] for ch in kernel_layout)]
        return te.sum(_as(padded[tuple(src)], dt) * _as(w, dt), axis=_reduce_order(
            data_layout, rc, rs))
    name = f"{'group_' if groups != 1 else ''}conv{k}d_{data_layout.lower()}"
    return te.compute(tuple(shape), body, name=name)


def _window_out(size: tx.PrimExpr, ksize: tx.PrimExpr, stride: int, pad: int, dil: int
                ) -> tx.PrimExpr:
    """The output size of a convolution window; a symbolic kernel of stride and dilation 1
    gives TVM's `h + 1 - kh`."""
    if _static(ksize) is None and stride == 1 and dil == 1:
        return size + _i(pad + 1) - ksize
    return simplify((size + (pad - dil * (ksize - 1) - 1)) // stride + 1)


def _reduce_order(layout: str, rc: Any, rs: list[Any]) -> list[Any]:
    """Channels first when the data has them before its spatial dims (NCHW), else last."""
    return [rc, *rs] if layout.index("C") < len(layout) - len(rs) else [*rs, rc]


def _layout_axes(layout: str) -> list[str]:
    import re

    return re.findall(r"\d*[A-Za-z]", layout)


def max_pool(data: te.Tensor, kernel: Any, strides: Any, dilation: Any, padding: Any,
             ceil_mode: bool, layout: str) -> te.Tensor:
    """TVM's max pool of any rank: the data padded with the lowest value into `pad_temp`
    (only when something is padded; ceil mode pads `stride - 1` more after), then
    `pool_max` over the window."""
    axes = _layout_axes(layout)
    spatial = [ch for ch in ("D", "H", "W") if ch in axes][-len(kernel):]
    k = len(spatial)
    pos = [axes.index(ch) for ch in spatial]
    pads = list(padding) if len(padding) == 2 * k else list(padding) * 2
    before, after = [0] * data.ndim, [0] * data.ndim
    for s in range(k):
        before[pos[s]] = pads[s]
        after[pos[s]] = pads[s + k] + (strides[s] - 1 if ceil_mode else 0)
    lowest = te.min_value(data.dtype)
    padded = pad(data, before, after, lowest.value, name="pad_temp") \
        if any(before) or any(after) else data
    shape = list(data.shape)
    for s, p in enumerate(pos):
        shape[p] = simplify((data.shape[p] + (before[p] + after[p] - dilation[s] * (
            kernel[s] - 1) - 1)) // strides[s] + 1)
    rv = [te.reduce_axis(kernel[s], f"rv{s}") for s in range(k)]

    def body(*o: tx.PrimExpr) -> tx.PrimExpr:
        src = list(o)
        for s, p in enumerate(pos):
            src[p] = mul(o[p], strides[s]) + mul(rv[s], dilation[s])
        return te.max(padded[tuple(src)], axis=rv, init=lowest)
    return te.compute(tuple(shape), body, name="pool_max",
                      attrs={"schedule_rule": "meta_schedule.pool_max"})


def adaptive_avg_pool(data: te.Tensor, output_size: Any, layout: str) -> te.Tensor | None:
    """TVM's adaptive average pool where every window has the same size (each input size a
    multiple of the output size): `adaptive_pool_sum`, then `adaptive_pool_avg`. None when
    the windows differ (the caller keeps tvmlite's form)."""
    axes = _layout_axes(layout)
    spatial = [ch for ch in ("D", "H", "W") if ch in axes][-len(output_size):]
    pos = [axes.index(ch) for ch in spatial]
    sizes = [_static(data.shape[p]) for p in pos]
    outs = [_static(_i(o)) for o in output_size]
    if None in sizes or None in outs or any(n % o for n, o in zip(sizes, outs)):
        return None
    windows = [n // o for n, o in zip(sizes, outs)]
    shape = list(data.shape)
    for p, o in zip(pos, outs):
        shape[p] = tx.const(o, "int64")
    rv = [te.reduce_axis(w, f"rv{s}") for s, w in enumerate(windows)]

    def body(*o: tx.PrimExpr) -> tx.PrimExpr:
        src = list(o)
        for s, p in enumerate(pos):
            src[p] = mul(o[p], windows[s]) + rv[s]
        return te.sum(data[tuple(src)], axis=rv)
    total = te.compute(tuple(shape), body, name="adaptive_pool_sum")
    area = 1
    for w in windows:
        area *= w
    return te.compute(tuple(shape), lambda *i: total[i] if area == 1 else total[i] / tx.const(
        float(area), data.dtype), name="adaptive_pool_avg",
        attrs={"schedule_rule": "meta_schedule.adaptive_pool_avg"})


def dilate(x: te.Tensor, strides: list[int], name: str = "DilatedInput") -> te.Tensor:
    """TVM's topi.nn.dilate: zeros between the elements along each axis of stride > 1."""
    shape = tuple(simplify((d - 1) * s + 1) if s != 1 else d for d, s in zip(x.shape, strides))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        conds = [tx.binop(B.EQ, tx.binop(B.FLOORMOD, v, _i(s)), _i(0))
                 for v, s in zip(i, strides) if s != 1]
        src = tuple(floordiv(v, s) for v, s in zip(i, strides))
        if not conds:
            return x[src]
        inside = conds[0]
        for c in conds[1:]:
            inside = tx.binop(B.AND, inside, c)
        return te.if_then_else(inside, x[src], tx.const(0.0, x.dtype))
    return te.compute(shape, body, name=name)


def conv_transpose(data: te.Tensor, weight: te.Tensor, strides: Any, padding: Any,
                   output_padding: Any, dilation: Any, groups: int, out_dtype: str
                   ) -> te.Tensor:
    """TVM's group_conv<k>d_transpose_nc...: the data dilated by the strides and padded by
    `kernel - 1 - padding`, then a plain convolution with the flipped, transposed kernel
    (IO... weights; a dilated kernel is spread out first)."""
    k = data.ndim - 2
    if any(d != 1 for d in dilation):
        weight = dilate(weight, [1, 1, *dilation], name="kernel_dilate")
    ksize = list(weight.shape[2:])
    dilated = dilate(data, [1, 1, *strides], name="data_dilate")
    before = [0, 0] + [simplify(ks - 1 - padding[s]) for s, ks in enumerate(ksize)]
    after = [0, 0] + [simplify(ks - 1 - padding[s + k] + output_padding[s])
                      for s, ks in enumerate(ksize)]
    padded = pad(dilated, before, after, 0.0, name="data_pad")
    flipped = te.compute((weight.shape[1], weight.shape[0], *ksize), lambda *o: weight[
        (o[1], o[0], *(_flip(v, ks) for v, ks in zip(o[2:], ksize)))], name="kernel_transform")
    out_pg = weight.shape[1]
    in_pg = simplify(floordiv(data.shape[1], groups))
    out_sp = [simplify(p - ks + 1) for p, ks in zip(padded.shape[2:], ksize)]
    dc = te.reduce_axis(in_pg, "dc")
    rs = [te.reduce_axis(ks, f"d{s}") for s, ks in enumerate(ksize)]

    def body(*o: Any) -> tx.PrimExpr:
        b, c, sp = o[0], o[1], o[2:]
        cin = dc if groups == 1 else mul(floordiv(c, out_pg), in_pg) + dc
        cout = c if groups == 1 else tx.binop(B.FLOORMOD, c, _i(out_pg))
        v = padded[(b, cin, *(o + r for o, r in zip(sp, rs)))]
        w = flipped[(cout, cin, *rs)]
        return te.sum(_as(v, out_dtype) * _as(w, out_dtype), axis=[dc, *rs])
    out_c = simplify(out_pg * groups) if groups != 1 else out_pg
    return te.compute((data.shape[0], out_c, *out_sp), body, name="compute")


def _flip(v: tx.PrimExpr, size: tx.PrimExpr) -> tx.PrimExpr:
    last = simplify(size - 1)
    return last - v if isinstance(last, tx.IntImm) else size - v - 1


def avg_pool(data: te.Tensor, kernel: Any, strides: Any, padding: Any, ceil_mode: bool,
             layout: str) -> te.Tensor | None:
    """TVM's average pool that leaves the padding out of the count, for static sizes, no
    dilation and the window counts whose simplified form tvmlite writes as TVM does (stride
    1, or some padding before); None otherwise (the caller keeps tvmlite's form)."""
    axes = _layout_axes(layout)
    spatial = [ch for ch in ("D", "H", "W") if ch in axes][-len(kernel):]
    k = len(spatial)
    pos = [axes.index(ch) for ch in spatial]
    pads = list(padding) if len(padding) == 2 * k else list(padding) * 2
    sizes = [_static(data.shape[p]) for p in pos]
    if None in sizes or any(s > 1 and pads[d] == 0 for d, s in enumerate(strides)):
        return None
    before, after = [0] * data.ndim, [0] * data.ndim
    for s in range(k):
        before[pos[s]] = pads[s]
        after[pos[s]] = pads[s + k] + (strides[s] - 1 if ceil_mode else 0)
    padded = pad(data, before, after, 0.0, name="pad_temp") if any(before) or any(after) \
        else data
    shape = list(data.shape)
    for s, p in enumerate(pos):
        shape[p] = simplify((data.shape[p] + (before[p] + after[p] - kernel[s] + 1 - 1))
                            // strides[s] + 1)
    rv = [te.reduce_axis(kernel[s], f"rv{s}") for s in range(k)]

    def window(*o: tx.PrimExpr) -> tx.PrimExpr:
        src = list(o)
        for s, p in enumerate(pos):
            src[p] = mul(o[p], strides[s]) + rv[s]
        return te.sum(padded[tuple(src)], axis=rv)
    total = te.compute(tuple(shape), window, name="pool_sum")

    def avg(*o: tx.PrimExpr) -> tx.PrimExpr:
        count: tx.PrimExpr | None = None
        for s, p in enumerate(pos):
            c = _window_count(o[p], kernel[s], strides[s], pads[s], sizes[s])
            count = c if count is None else count * c
        assert count is not None
        whole = tx.binop(B.MAX, count, _i(1))
        return total[o] / tx.Cast(data.dtype, whole)
    return te.compute(tuple(shape), avg, name="pool_avg",
                      attrs={"schedule_rule": "meta_schedule.pool_avg"})


def _window_count(v: tx.PrimExpr, ksize: int, stride: int, before: int, size: int
                  ) -> tx.PrimExpr:
    """How many input elements the window at output index v covers (its padding left out),
    in the form TVM's simplifier gives min(end, size - 1) - max(start, 0) + 1."""
    if stride == 1:
        return tx.binop(B.MIN, _i(ksize - 1 - before), _i(size - 1) - v) + _i(before + 1) \
            - tx.binop(B.MAX, _i(before) - v, _i(0))
    at = v * _i(stride)
    last = tx.binop(B.MIN, at + _i(ksize - 1 - before), _i(size - 1))
    return last + _i(before + 1) - tx.binop(B.MAX, _i(before) - at, _i(0)) - at
