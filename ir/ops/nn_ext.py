"""More `R.nn` operators: pad, conv1d, conv2d_transpose, group_norm, instance_norm, attention,
the 1-d pools, pixel_shuffle and batch_flatten; and `R.image.resize2d`."""

from __future__ import annotations

import re

from typing import Any, Callable

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OUT_EWISE_FUSABLE, REDUCE, as_int, call, dim, fmt, norm_axis, op_error,
    out_tensor, prod, register, same_dim, tensor_arg,
)
from .reduce_nn import _check_param, window_out


def _ints(v: Any, n: int) -> tuple[int, ...]:
    t = (v,) * n if isinstance(v, int) else tuple(int(x) for x in v)
    return t * n if len(t) == 1 and n > 1 else t


def _rank(name: str, t: si.TensorStructInfo, n: int, what: str) -> None:
    if t.ndim not in (-1, n):
        raise op_error(name, f"{what} must be {n}-d, got rank {t.ndim}")


def _layouts(name: str, c: rx.Call, want: dict[str, str]) -> None:
    for key, value in want.items():
        if c.attr(key) not in (None, value):
            raise op_error(name, f"only {key}={value!r} is supported, got {c.attr(key)!r}")


def _conv_operands(name: str, c: rx.Call, data_layout: str, kernel_layout: str
                   ) -> tuple[si.TensorStructInfo, si.TensorStructInfo, str]:
    """A convolution's data and weight, checked against the one layout pair supported, and its
    output dtype."""
    x, w = tensor_arg(name, c, 0, "data"), tensor_arg(name, c, 1, "weight")
    _layouts(name, c, {"data_layout": data_layout, "kernel_layout": kernel_layout})
    _rank(name, x, len(data_layout), f"data ({data_layout})")
    _rank(name, w, len(kernel_layout), f"weight ({kernel_layout})")
    return x, w, c.attr("out_dtype") or x.dtype


# -- pad ------------------------------------------------------------------------------------------


def _infer_pad(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.pad", c, 0, "data")
    widths = c.attr("pad_width")
    if c.attr("pad_mode") not in ("constant", "edge", "reflect"):
        raise op_error("relax.nn.pad", f"pad_mode must be constant, edge or reflect, got "
                                       f"{c.attr('pad_mode')!r}")
    if x.shape is None:
        return x
    if len(widths) != 2 * len(x.shape):
        raise op_error("relax.nn.pad", f"pad_width has {len(widths)} numbers; a rank-"
                                       f"{len(x.shape)} tensor needs {2 * len(x.shape)} "
                                       f"(before, after per axis)")
    return out_tensor(tuple(d + widths[2 * i] + widths[2 * i + 1]
                            for i, d in enumerate(x.shape)), x.dtype)


def pad(data: Any, pad_width: Any, pad_mode: str = "constant", pad_value: float = 0.0
        ) -> rx.Call:
    flat = tuple(int(v) for pair in pad_width for v in (pair if isinstance(pair, (list, tuple))
                                                        else (pair,)))
    return call("relax.nn.pad", (data,), pad_width=flat, pad_mode=str(pad_mode or "constant"),
                pad_value=float(pad_value or 0.0))


# -- convolutions ---------------------------------------------------------------------------------


def _infer_conv1d(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.conv1d"
    dl, kl = c.attr("data_layout") or "NCW", c.attr("kernel_layout") or "OIW"
    if sorted(dl) != sorted("NCW") or sorted(kl) != sorted("OIW"):
        raise op_error(name, f"data_layout must order N, C, W and kernel_layout O, I, W; got "
                             f"{dl!r} and {kl!r}")
    x, w, dtype = _conv_operands(name, c, dl, kl)
    if x.shape is None or w.shape is None:
        return si.TensorStructInfo(None, dtype, 3)
    out = _infer_conv1d_ncw(name, c, _reorder(x, dl, "NCW"), _reorder(w, kl, "OIW"), dtype)
    return out_tensor(tuple(out.shape[k] for k in ("NCW".index(ch) for ch in dl)), dtype)


def _reorder(t: si.TensorStructInfo, src: str, dst: str) -> si.TensorStructInfo:
    assert t.shape is not None
    return si.TensorStructInfo(tuple(t.shape[src.index(ch)] for ch in dst), t.dtype)


def _infer_conv1d_ncw(name: str, c: rx.Call, x: si.TensorStructInfo, w: si.TensorStructInfo,
                      dtype: str) -> si.TensorStructInfo:
    assert x.shape is not None and w.shape is not None
    groups = c.attr("groups")
    if same_dim(x.shape[1], w.shape[1] * groups) is False:
        raise op_error(name, f"data has {fmt(x.shape[1:2])} channels but weight {fmt(w.shape)} "
                             f"expects {as_int(w.shape[1] * groups)} (groups={groups})")
    k = w.shape[2]
    (st,), pd, (dl,) = c.attr("strides"), c.attr("padding"), c.attr("dilation")
    return out_tensor((x.shape[0], w.shape[0],
                       window_out(name, x.shape[2], k, st, pd[0] + pd[1], dl)), dtype)


def conv1d(data: Any, weight: Any, strides: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1, data_layout: str = "NCW", kernel_layout: str = "OIW",
           out_layout: Any = None, out_dtype: Any = None) -> rx.Call:
    return call("relax.nn.conv1d", (data, weight), strides=_ints(strides, 1),
                padding=_ints(padding, 2), dilation=_ints(dilation, 1), groups=int(groups),
                data_layout=data_layout, kernel_layout=kernel_layout,
                out_dtype=None if str(out_dtype) in ("void", "None", "") else str(out_dtype))


def conv_transpose_inferer(name: str, data_layout: str, kernel_layout: str
                           ) -> Callable[[rx.Call], si.StructInfo]:
    """Struct info of an N-d transposed conv (N = the spatial letters of `data_layout`):
    each output size is (in - 1) * stride - pads + dilation * (kernel - 1) + output_padding
    + 1, the channels the weight's second dim times the groups."""
    rank = len(data_layout) - 2

    def infer(c: rx.Call) -> si.StructInfo:
        x, w, dtype = _conv_operands(name, c, data_layout, kernel_layout)
        if x.shape is None or w.shape is None:
            return si.TensorStructInfo(None, dtype, rank + 2)
        groups = c.attr("groups")
        if same_dim(x.shape[1], w.shape[0]) is False:
            raise op_error(name, f"data has {fmt(x.shape[1:2])} channels but weight "
                                 f"{fmt(w.shape)} takes {fmt(w.shape[:1])} ({kernel_layout})")
        st, pd, op_, dl = (c.attr(a) for a in ("strides", "padding", "output_padding",
                                                "dilation"))
        if any(o >= s and o >= d for o, s, d in zip(op_, st, dl)):
            raise op_error(name, f"output_padding {op_} must be smaller than strides {st} or "
                                 f"dilation {dl}")
        size = []
        for k in range(rank):
            kk = as_int(w.shape[2 + k])
            if kk is None:
                raise op_error(name, "the kernel size must be static")
            size.append((x.shape[2 + k] - 1) * st[k] - pd[k] - pd[k + rank] + dl[k] * (kk - 1)
                        + op_[k] + 1)
        return out_tensor((x.shape[0], w.shape[1] * groups, *size), dtype)
    return infer


def conv2d_transpose(data: Any, weight: Any, strides: Any = (1, 1), padding: Any = (0, 0),
                     output_padding: Any = (0, 0), dilation: Any = (1, 1), groups: int = 1,
                     data_layout: str = "NCHW", kernel_layout: str = "IOHW",
                     out_layout: Any = None, out_dtype: Any = None) -> rx.Call:
    p = _ints(padding, 2)
    p4 = p * 2 if len(p) == 2 else (p * 4 if len(p) == 1 else p)
    return call("relax.nn.conv2d_transpose", (data, weight), strides=_ints(strides, 2),
                padding=p4, output_padding=_ints(output_padding, 2),
                dilation=_ints(dilation, 2), groups=int(groups), data_layout=data_layout,
                kernel_layout=kernel_layout,
                out_dtype=None if str(out_dtype) in ("void", "None", "") else str(out_dtype))


# -- normalization --------------------------------------------------------------------------------


def _infer_group_norm(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    if x.shape is None:
        return x
    ch = norm_axis(name, c.attr("channel_axis"), len(x.shape))
    for a in c.attr("axes"):
        if norm_axis(name, a, len(x.shape)) == ch:
            raise op_error(name, "axes must not include the channel axis")
    groups = c.attr("num_groups")
    n_ch = as_int(x.shape[ch])
    if name == "relax.nn.group_norm" and n_ch is not None and n_ch % groups:
        raise op_error(name, f"{n_ch} channels do not split into {groups} groups")
    _check_param(name, c, 1, "gamma", (x.shape[ch],))
    _check_param(name, c, 2, "beta", (x.shape[ch],))
    return x


def group_norm(data: Any, gamma: Any, beta: Any, num_groups: int, channel_axis: int, axes: Any,
               epsilon: float = 1e-5, center: bool = True, scale: bool = True) -> rx.Call:
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    return call("relax.nn.group_norm", (data, gamma, beta), num_groups=int(num_groups),
                channel_axis=int(channel_axis), axes=ax, epsilon=float(epsilon),
                center=bool(center), scale=bool(scale))


def instance_norm(data: Any, gamma: Any, beta: Any, channel_axis: int, axes: Any,
                  epsilon: float = 1e-5, center: bool = True, scale: bool = True) -> rx.Call:
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    return call("relax.nn.instance_norm", (data, gamma, beta), num_groups=0,
                channel_axis=int(channel_axis), axes=ax, epsilon=float(epsilon),
                center=bool(center), scale=bool(scale))


# -- attention ------------------------------------------------------------------------------------


def _infer_attention(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.attention"
    q, k, v = (tensor_arg(name, c, i, w) for i, w in enumerate(("query", "key", "value")))
    for t, what in ((q, "query"), (k, "key"), (v, "value")):
        _rank(name, t, 4, f"{what} (batch, seq, heads, head_dim)")
    if c.attr("causal_mask") not in (None, "TopLeft", "BottomRight"):
        raise op_error(name, f"causal_mask must be TopLeft or BottomRight, got "
                             f"{c.attr('causal_mask')!r}")
    if q.shape is None or k.shape is None or v.shape is None:
        return si.TensorStructInfo(None, q.dtype, 4)
    checks = ((q.shape[0], k.shape[0], "batch"), (q.shape[2], k.shape[2], "heads"),
              (q.shape[3], k.shape[3], "query/key head_dim"),
              (k.shape[1], v.shape[1], "key/value sequence"), (k.shape[0], v.shape[0], "batch"))
    for a, b, what in checks:
        if same_dim(a, b) is False:
            raise op_error(name, f"{what} sizes differ: query {fmt(q.shape)}, key "
                                 f"{fmt(k.shape)}, value {fmt(v.shape)}")
    return out_tensor((q.shape[0], q.shape[1], q.shape[2], v.shape[3]), q.dtype)


def attention(query: Any, key: Any, value: Any, bias: Any = None, scale: Any = None,
              causal_mask: str | None = None, window_size: int | None = None) -> rx.Call:
    """Multi-head attention on (batch, seq, heads, head_dim) tensors: softmax(q k^T * scale
    + bias, masked) v."""
    if window_size is not None:
        raise op_error("relax.nn.attention", "window_size (sliding-window attention) is not "
                                             "supported")
    args = (query, key, value) if bias is None else (query, key, value, bias)
    sc = None if scale is None else float(getattr(scale, "value", scale))
    # NOTE: with a bias it is TVM's separate operator (printed, legalized and named so)
    name = "relax.nn.attention" if bias is None else "relax.nn.attention_bias"
    return call(name, args, scale=sc, causal_mask=causal_mask)


# -- 1-d pools, pixel_shuffle, batch_flatten ------------------------------------------------------


def _infer_pool1d(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    _layouts(name, c, {"layout": "NCW"})
    _rank(name, x, 3, "data (NCW)")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 3)
    (k,), (st,), pd, (dl,) = (c.attr(a) for a in ("pool_size", "strides", "padding",
                                                  "dilation"))
    w = window_out(name, x.shape[2], k, st, pd[0] + pd[1], dl, bool(c.attr("ceil_mode")))
    return out_tensor((x.shape[0], x.shape[1], w), x.dtype)


def _pool1d_maker(name: str, include_pad: bool) -> Any:
    def make(data: Any, pool_size: Any = (1,), strides: Any = (1,), padding: Any = (0, 0),
             dilation: Any = (1,), ceil_mode: bool = False,
             count_include_pad: bool = include_pad, layout: str = "NCW",
             out_layout: Any = None) -> rx.Call:
        return call(name, (data,), pool_size=_ints(pool_size, 1), strides=_ints(strides, 1),
                    padding=_ints(padding, 2), dilation=_ints(dilation, 1),
                    ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                    layout=layout)
    make.__name__ = name.split(".")[-1]
    return make


def _infer_adaptive1d(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.adaptive_avg_pool1d", c, 0, "data")
    _layouts("relax.nn.adaptive_avg_pool1d", c, {"layout": "NCW"})
    _rank("relax.nn.adaptive_avg_pool1d", x, 3, "data (NCW)")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 3)
    size = c.attr("output_size")
    return out_tensor((x.shape[0], x.shape[1], x.shape[2] if size is None else dim(size[0])),
                      x.dtype)


def adaptive_avg_pool1d(data: Any, output_size: Any = None, layout: str = "NCW",
                        out_layout: Any = None) -> rx.Call:
    size = None if output_size is None else _ints(output_size, 1)
    return call("relax.nn.adaptive_avg_pool1d", (data,), output_size=size, layout=layout)


def _infer_pixel_shuffle(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.pixel_shuffle", c, 0, "data")
    _rank("relax.nn.pixel_shuffle", x, 4, "data (NCHW)")
    r = c.attr("upscale_factor")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 4)
    ch = as_int(x.shape[1])
    if ch is not None and ch % (r * r):
        raise op_error("relax.nn.pixel_shuffle", f"{ch} channels are not a multiple of "
                                                 f"upscale_factor**2 = {r * r}")
    n, c_, h, w = x.shape
    return out_tensor((n, c_ // (r * r), h * r, w * r), x.dtype)


def pixel_shuffle(data: Any, upscale_factor: int) -> rx.Call:
    return call("relax.nn.pixel_shuffle", (data,), upscale_factor=int(upscale_factor))


def _infer_batch_flatten(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.batch_flatten", c, 0, "data")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 2)
    if not x.shape:
        raise op_error("relax.nn.batch_flatten", "data needs at least one dimension")
    return out_tensor((x.shape[0], prod(x.shape[1:])), x.dtype)


def batch_flatten(data: Any) -> rx.Call:
    return call("relax.nn.batch_flatten", (data,))


# -- image.resize2d -------------------------------------------------------------------------------

RESIZE_METHODS = ("nearest_neighbor", "linear")
RESIZE_COORDS = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel")


def _infer_resize2d(c: rx.Call) -> si.StructInfo:
    name = "relax.image.resize2d"
    x = tensor_arg(name, c, 0, "data")
    layout = c.attr("layout") or "NCHW"
    axes = layout_axes(layout)
    if "".join(axes) != layout or "H" not in axes or "W" not in axes:
        raise op_error(name, f"layout must name the axes H and W (such as NCHW, NHWC or "
                             f"NCHW16c), got {layout!r}")
    _rank(name, x, len(axes), f"data ({layout})")
    if c.attr("method") not in RESIZE_METHODS:
        raise op_error(name, f"method must be one of {RESIZE_METHODS}, got {c.attr('method')!r}")
    if c.attr("coordinate_transformation_mode") not in RESIZE_COORDS:
        raise op_error(name, f"coordinate_transformation_mode must be one of {RESIZE_COORDS}, "
                             f"got {c.attr('coordinate_transformation_mode')!r}")
    size = c.args[1]
    dims = size.values if isinstance(size, rx.ShapeExpr) else getattr(
        size.struct_info, "values", None)
    dtype = c.attr("out_dtype") or x.dtype
    if x.shape is None or dims is None:
        return si.TensorStructInfo(None, dtype, len(axes))
    out = list(x.shape)
    out[axes.index("H")], out[axes.index("W")] = dims
    return out_tensor(tuple(out), dtype)


def layout_axes(layout: str) -> list[str]:
    """A layout's axes: `NCHW16c` is N, C, H, W and the sub-axis 16c (TVM's layout names)."""
    return re.findall(r"\d*[A-Za-z]", layout)


def resize2d(data: Any, size: Any, roi: Any = None, layout: str = "NCHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "round", cubic_alpha: float = -0.75, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Any = None) -> rx.Call:
    from .manipulate import _as_shape

    items = (size, size) if isinstance(size, (int, tx.PrimExpr)) else size
    return call("relax.image.resize2d", (data, _as_shape(items)), layout=layout,
                method=str(method), coordinate_transformation_mode=str(
                    coordinate_transformation_mode), rounding_method=str(rounding_method),
                out_dtype=None if str(out_dtype) in ("void", "None", "") else str(out_dtype))


register("relax.nn.pad", _infer_pad, pad, INJECTIVE)
register("relax.nn.conv1d", _infer_conv1d, conv1d, OUT_EWISE_FUSABLE)
register("relax.nn.conv2d_transpose",
         conv_transpose_inferer("relax.nn.conv2d_transpose", "NCHW", "IOHW"),
         conv2d_transpose, OUT_EWISE_FUSABLE)
register("relax.nn.group_norm", _infer_group_norm, group_norm, REDUCE)
register("relax.nn.instance_norm", _infer_group_norm, instance_norm, REDUCE)
register("relax.nn.attention", _infer_attention, attention, OUT_EWISE_FUSABLE)
register("relax.nn.max_pool1d", _infer_pool1d, _pool1d_maker("relax.nn.max_pool1d", False),
         REDUCE)
register("relax.nn.avg_pool1d", _infer_pool1d, _pool1d_maker("relax.nn.avg_pool1d", True),
         REDUCE)
register("relax.nn.adaptive_avg_pool1d", _infer_adaptive1d, adaptive_avg_pool1d, REDUCE)
register("relax.nn.pixel_shuffle", _infer_pixel_shuffle, pixel_shuffle, INJECTIVE)
register("relax.nn.batch_flatten", _infer_batch_flatten, batch_flatten, INJECTIVE)
register("relax.image.resize2d", _infer_resize2d, resize2d, INJECTIVE)
