"""Reductions (sum/mean/max/min/prod/argmax/argmin) and the `R.nn` operators that are not
elementwise: softmax, log_softmax, layer_norm, batch_norm, dropout, conv2d and pooling."""

from __future__ import annotations

import re

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OUT_EWISE_FUSABLE, REDUCE, as_int, call, dim, fmt, norm_axis, op_error,
    out_tensor, register, same_dim, tensor_arg,
)

REDUCTIONS = ("sum", "mean", "max", "min", "prod", "argmax", "argmin")


def reduce_axes(name: str, axis: Any, ndim: int) -> list[int]:
    if axis is None:
        return list(range(ndim))
    items = (axis,) if isinstance(axis, int) else axis
    return sorted({norm_axis(name, a, ndim) for a in items})


def _infer_reduce(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    dtype = "int64" if name.startswith("relax.arg") else x.dtype
    keep = bool(c.attr("keepdims"))
    if x.shape is None:
        return si.TensorStructInfo(None, dtype, x.ndim if keep else -1)
    axes = reduce_axes(name, c.attr("axis"), len(x.shape))
    shape = tuple(dim(1) if i in axes else d for i, d in enumerate(x.shape)
                  if keep or i not in axes)
    return out_tensor(shape, dtype)


def _reduce_maker(name: str) -> Any:
    def make(x: Any, axis: Any = None, keepdims: bool = False) -> rx.Call:
        ax = axis if axis is None or isinstance(axis, int) else tuple(axis)
        return call(name, (x,), axis=ax, keepdims=bool(keepdims))
    make.__name__ = name.split(".")[-1]
    return make


def _infer_same(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    if x.shape is not None and c.attr("axis") is not None:
        norm_axis(name, c.attr("axis"), len(x.shape))
    return x


def softmax(x: Any, axis: int = -1) -> rx.Call:
    return call("relax.nn.softmax", (x,), axis=axis)


def log_softmax(x: Any, axis: int = -1) -> rx.Call:
    return call("relax.nn.log_softmax", (x,), axis=axis)


def _check_param(name: str, c: rx.Call, i: int, what: str, want: tuple[Any, ...]) -> None:
    p = tensor_arg(name, c, i, what)
    if p.shape is not None and (len(p.shape) != len(want) or any(
            same_dim(a, b) is False for a, b in zip(p.shape, want))):
        raise op_error(name, f"{what} has shape {fmt(p.shape)}, expected {fmt(want)}")


def _infer_layer_norm(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.layer_norm", c, 0, "the input")
    if x.shape is not None:
        axes = [norm_axis("relax.nn.layer_norm", a, len(x.shape)) for a in c.attr("axes")]
        want = tuple(x.shape[a] for a in axes)
        _check_param("relax.nn.layer_norm", c, 1, "gamma", want)
        _check_param("relax.nn.layer_norm", c, 2, "beta", want)
    return x


def layer_norm(data: Any, gamma: Any, beta: Any, axes: Any, epsilon: float = 1e-5,
               center: bool = True, scale: bool = True) -> rx.Call:
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    return call("relax.nn.layer_norm", (data, gamma, beta), axes=ax, epsilon=float(epsilon),
                center=center, scale=scale)


def _infer_rms_norm(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.rms_norm", c, 0, "the input")
    if x.shape is not None:
        axes = [norm_axis("relax.nn.rms_norm", a, len(x.shape)) for a in c.attr("axes")]
        _check_param("relax.nn.rms_norm", c, 1, "weight", tuple(x.shape[a] for a in axes))
    return x


def rms_norm(data: Any, weight: Any, axes: Any = -1, epsilon: float = 1e-5) -> rx.Call:
    """`data / sqrt(mean(data**2, axes) + epsilon) * weight` (LLaMA-style RMSNorm)."""
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    return call("relax.nn.rms_norm", (data, weight), axes=ax, epsilon=float(epsilon))


def _infer_batch_norm(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.batch_norm", c, 0, "the input")
    if x.shape is None:
        vec1 = si.TensorStructInfo(None, x.dtype, 1)
        return si.TupleStructInfo((x, vec1, vec1))
    axis = norm_axis("relax.nn.batch_norm", c.attr("axis"), len(x.shape))
    ch = (x.shape[axis],)
    for i, what in enumerate(("gamma", "beta", "moving_mean", "moving_var"), 1):
        _check_param("relax.nn.batch_norm", c, i, what, ch)
    vec = out_tensor(ch, x.dtype)
    return si.TupleStructInfo((x, vec, vec))


def batch_norm(data: Any, gamma: Any, beta: Any, moving_mean: Any, moving_var: Any,
               axis: int = 1, epsilon: float = 1e-5, center: bool = True, scale: bool = True,
               momentum: float = 0.1, training: bool = True) -> rx.Call:
    """TVM's semantics: `training=True` (the default, as in TVM) normalizes with the batch's
    statistics and returns the moving ones updated by `momentum`; `training=False` normalizes
    with the moving statistics and returns them unchanged."""
    return call("relax.nn.batch_norm", (data, gamma, beta, moving_mean, moving_var), axis=axis,
                epsilon=float(epsilon), center=bool(center), scale=bool(scale),
                momentum=float(momentum), training=bool(training))


def _infer_dropout(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.dropout", c, 0, "the input")
    return si.TupleStructInfo((x, x))


def dropout(x: Any, rate: float = 0.5) -> rx.Call:
    return call("relax.nn.dropout", (x,), rate=float(rate))


# -- conv2d and pooling (NCHW / OIHW) --------------------------------------------------------------


def pair(v: Any, n: int = 2) -> tuple[int, ...]:
    t = (v,) * n if isinstance(v, int) else tuple(v)
    if n == 4 and len(t) == 2:
        t = t + t  # (top, left) -> (top, left, bottom, right)
    elif n == 4 and len(t) == 1:
        t = t * 4
    return t


def window_out(name: str, size: tx.PrimExpr, k: Any, stride: int, pad: int, dil: int,
               ceil: bool = False) -> tx.PrimExpr:
    if isinstance(k, tx.PrimExpr) and as_int(k) is None:  # a symbolic kernel size
        if stride == 1 and dil == 1 and not ceil:
            return size + tx.const(pad + 1, "int64") - k  # TVM's form: h + 1 - kh
        return (size + (pad + stride - 1 - dil * (k - 1))) // stride
    k = as_int(k) if isinstance(k, tx.PrimExpr) else k
    span = dil * (k - 1) + 1
    n = as_int(size)
    if n is not None:
        extra = stride - 1 if ceil else 0
        out = (n + pad - span + stride + extra) // stride
        if out <= 0:
            raise op_error(name, f"the window ({k} wide, dilation {dil}) does not fit an input "
                                 f"of {n} (+{pad} padding)")
        return dim(out)
    return (size + (pad - span + stride)) // stride


DATA_LAYOUTS = ("NCHW", "NHWC")
KERNEL_LAYOUTS = ("OIHW", "OHWI", "HWIO")


def to_layout(shape: tuple[Any, ...], src: str, dst: str) -> tuple[Any, ...]:
    """`shape` written in layout `src` re-ordered to layout `dst` (same letters)."""
    return tuple(shape[src.index(ch)] for ch in dst)


def _infer_conv2d(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.conv2d"
    x, w = tensor_arg(name, c, 0, "data"), tensor_arg(name, c, 1, "weight")
    dl, kl = c.attr("data_layout") or "NCHW", c.attr("kernel_layout") or "OIHW"
    if dl not in DATA_LAYOUTS or kl not in KERNEL_LAYOUTS:
        raise op_error(name, f"supported layouts are data {DATA_LAYOUTS} and kernel "
                             f"{KERNEL_LAYOUTS}, got {dl!r} and {kl!r}")
    dtype = c.attr("out_dtype") or x.dtype
    if x.ndim not in (-1, 4) or w.ndim not in (-1, 4):
        raise op_error(name, f"data and weight must be 4-d ({dl}, {kl}), got ranks {x.ndim} "
                             f"and {w.ndim}")
    if x.shape is None or w.shape is None:
        return si.TensorStructInfo(None, dtype, 4)
    xs, ws = to_layout(x.shape, dl, "NCHW"), to_layout(w.shape, kl, "OIHW")
    groups = c.attr("groups")
    if same_dim(xs[1], ws[1] * groups) is False:
        raise op_error(name, f"data has {fmt(xs[1:2])} channels but weight {fmt(w.shape)} "
                             f"expects {as_int(ws[1] * groups)} (groups={groups})")
    kh, kw = ws[2], ws[3]
    st, pd, dil = c.attr("strides"), c.attr("padding"), c.attr("dilation")
    oh = window_out(name, xs[2], kh, st[0], pd[0] + pd[2], dil[0])
    ow = window_out(name, xs[3], kw, st[1], pd[1] + pd[3], dil[1])
    return out_tensor(to_layout((xs[0], ws[0], oh, ow), "NCHW", dl), dtype)


def conv2d(data: Any, weight: Any, strides: Any = (1, 1), padding: Any = (0, 0),
           dilation: Any = (1, 1), groups: int = 1, data_layout: str = "NCHW",
           kernel_layout: str = "OIHW", out_layout: Any = None, out_dtype: Any = None
           ) -> rx.Call:
    if out_layout not in (None, data_layout):
        raise op_error("relax.nn.conv2d", f"out_layout must equal data_layout "
                                          f"({data_layout!r}), got {out_layout!r}")
    return call("relax.nn.conv2d", (data, weight), strides=pair(strides),
                padding=pair(padding, 4), dilation=pair(dilation), groups=groups,
                data_layout=data_layout, kernel_layout=kernel_layout,
                out_dtype=None if str(out_dtype) in ("void", "None", "") else out_dtype)


def layout_axes(layout: str) -> list[str]:
    """A layout's axes: `NCHW16c` is N, C, H, W and the sub-axis 16c (TVM's layout names)."""
    return re.findall(r"\d*[A-Za-z]", layout)


def _pool_hw(name: str, c: rx.Call) -> tuple[int, int, int]:
    """The positions of H and W in the data of a 2-d pool, and its rank."""
    layout = c.attr("layout") or "NCHW"
    axes = layout_axes(layout)
    if "".join(axes) != layout or "H" not in axes or "W" not in axes:
        raise op_error(name, f"layout must name the axes H and W (such as NCHW, NHWC or "
                             f"NCHW16c), got {layout!r}")
    return axes.index("H"), axes.index("W"), len(axes)


def _infer_pool(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    ih, iw, rank = _pool_hw(name, c)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, rank)
    if len(x.shape) != rank:
        raise op_error(name, f"data must be {rank}-d ({c.attr('layout') or 'NCHW'}), got "
                             f"shape {fmt(x.shape)}")
    k, st, pd, dl = (c.attr(a) for a in ("pool_size", "strides", "padding", "dilation"))
    ceil = bool(c.attr("ceil_mode"))
    out = list(x.shape)
    out[ih] = window_out(name, x.shape[ih], k[0], st[0], pd[0] + pd[2], dl[0], ceil)
    out[iw] = window_out(name, x.shape[iw], k[1], st[1], pd[1] + pd[3], dl[1], ceil)
    return out_tensor(tuple(out), x.dtype)


def _pool_maker(name: str) -> Any:
    def make(data: Any, pool_size: Any = (1, 1), strides: Any = (1, 1), padding: Any = (0, 0),
             dilation: Any = (1, 1), ceil_mode: bool = False, count_include_pad: bool = False,
             layout: str = "NCHW", out_layout: Any = None) -> rx.Call:
        return call(name, (data,), pool_size=pair(pool_size), strides=pair(strides),
                    padding=pair(padding, 4), dilation=pair(dilation), ceil_mode=ceil_mode,
                    count_include_pad=count_include_pad, layout=layout)
    make.__name__ = name.split(".")[-1]
    return make


def _infer_adaptive(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.adaptive_avg_pool2d", c, 0, "data")
    ih, iw, rank = _pool_hw("relax.nn.adaptive_avg_pool2d", c)
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, rank)
    size = c.attr("output_size")
    out = list(x.shape)
    if size is not None:
        out[ih], out[iw] = (dim(s) for s in size)
    return out_tensor(tuple(out), x.dtype)


def adaptive_avg_pool2d(data: Any, output_size: Any = None, layout: str = "NCHW",
                        out_layout: Any = None) -> rx.Call:
    size = None if output_size is None else pair(output_size)
    return call("relax.nn.adaptive_avg_pool2d", (data,), output_size=size, layout=layout)


for _n in REDUCTIONS:
    register(f"relax.{_n}", _infer_reduce, _reduce_maker(f"relax.{_n}"), REDUCE)
register("relax.nn.softmax", _infer_same, softmax, REDUCE)
register("relax.nn.log_softmax", _infer_same, log_softmax, REDUCE)
register("relax.nn.layer_norm", _infer_layer_norm, layer_norm, REDUCE)
register("relax.nn.rms_norm", _infer_rms_norm, rms_norm, REDUCE)
register("relax.nn.batch_norm", _infer_batch_norm, batch_norm, REDUCE)
register("relax.nn.dropout", _infer_dropout, dropout, INJECTIVE)
register("relax.nn.conv2d", _infer_conv2d, conv2d, OUT_EWISE_FUSABLE)
register("relax.nn.max_pool2d", _infer_pool, _pool_maker("relax.nn.max_pool2d"), REDUCE)
register("relax.nn.avg_pool2d", _infer_pool, _pool_maker("relax.nn.avg_pool2d"), REDUCE)
register("relax.nn.adaptive_avg_pool2d", _infer_adaptive, adaptive_avg_pool2d, REDUCE)
