"""The 3-d `R.nn` operators: conv3d, conv3d_transpose, max_pool3d, avg_pool3d and
adaptive_avg_pool3d (NCDHW data; OIDHW / IODHW weights), with TVM 0.27's attributes."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from .base import (
    OUT_EWISE_FUSABLE, REDUCE, as_int, call, dim, fmt, op_error, out_tensor, register, same_dim,
    tensor_arg,
)
from .nn_ext import _conv_operands, _ints, _layouts, _rank, conv_transpose_inferer
from .reduce_nn import window_out


def _pads(v: Any) -> tuple[int, ...]:
    """3 (front, top, left) or 6 (and back, bottom, right) paddings, as TVM takes them."""
    p = _ints(v, 3)
    if len(p) == 3:
        return p * 2
    if len(p) != 6:
        raise op_error("relax.nn.conv3d", f"padding takes 1, 3 or 6 values, got {len(p)}")
    return p


def _dtype_attr(out_dtype: Any) -> str | None:
    return None if str(out_dtype) in ("void", "None", "") else str(out_dtype)


def _static(name: str, v: Any, what: str) -> int:
    k = as_int(v)
    if k is None:
        raise op_error(name, f"{what} must be static")
    return k


def _infer_conv3d(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.conv3d"
    x, w, dtype = _conv_operands(name, c, "NCDHW", "OIDHW")
    if x.shape is None or w.shape is None:
        return si.TensorStructInfo(None, dtype, 5)
    groups = c.attr("groups")
    if same_dim(x.shape[1], w.shape[1] * groups) is False:
        raise op_error(name, f"data has {fmt(x.shape[1:2])} channels but weight {fmt(w.shape)} "
                             f"expects {as_int(w.shape[1] * groups)} (groups={groups})")
    st, pd, dl = c.attr("strides"), c.attr("padding"), c.attr("dilation")
    spatial = tuple(window_out(name, x.shape[2 + k], _static(name, w.shape[2 + k], "the kernel"),
                               st[k], pd[k] + pd[k + 3], dl[k]) for k in range(3))
    return out_tensor((x.shape[0], w.shape[0], *spatial), dtype)


def conv3d(data: Any, weight: Any, strides: Any = (1, 1, 1), padding: Any = (0, 0, 0),
           dilation: Any = (1, 1, 1), groups: int = 1, data_layout: str = "NCDHW",
           kernel_layout: str = "OIDHW", out_layout: Any = None, out_dtype: Any = None
           ) -> rx.Call:
    return call("relax.nn.conv3d", (data, weight), strides=_ints(strides, 3),
                padding=_pads(padding), dilation=_ints(dilation, 3), groups=int(groups),
                data_layout=data_layout, kernel_layout=kernel_layout,
                out_dtype=_dtype_attr(out_dtype))


def conv3d_transpose(data: Any, weight: Any, strides: Any = (1, 1, 1),
                     padding: Any = (0, 0, 0), output_padding: Any = (0, 0, 0),
                     dilation: Any = (1, 1, 1), groups: int = 1, data_layout: str = "NCDHW",
                     kernel_layout: str = "IODHW", out_layout: Any = None,
                     out_dtype: Any = None) -> rx.Call:
    return call("relax.nn.conv3d_transpose", (data, weight), strides=_ints(strides, 3),
                padding=_pads(padding), output_padding=_ints(output_padding, 3),
                dilation=_ints(dilation, 3), groups=int(groups), data_layout=data_layout,
                kernel_layout=kernel_layout, out_dtype=_dtype_attr(out_dtype))


def _infer_pool3d(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    _layouts(name, c, {"layout": "NCDHW"})
    _rank(name, x, 5, "data (NCDHW)")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 5)
    k, st, pd, dl = (c.attr(a) for a in ("pool_size", "strides", "padding", "dilation"))
    ceil = bool(c.attr("ceil_mode"))
    spatial = tuple(window_out(name, x.shape[2 + i], k[i], st[i], pd[i] + pd[i + 3], dl[i],
                               ceil) for i in range(3))
    return out_tensor((x.shape[0], x.shape[1], *spatial), x.dtype)


def _pool3d_maker(name: str, include_pad: bool) -> Any:
    def make(data: Any, pool_size: Any = (1, 1, 1), strides: Any = (1, 1, 1),
             padding: Any = (0, 0, 0), dilation: Any = (1, 1, 1), ceil_mode: bool = False,
             count_include_pad: bool = include_pad, layout: str = "NCDHW",
             out_layout: Any = None) -> rx.Call:
        return call(name, (data,), pool_size=_ints(pool_size, 3), strides=_ints(strides, 3),
                    padding=_pads(padding), dilation=_ints(dilation, 3),
                    ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                    layout=layout)
    make.__name__ = name.split(".")[-1]
    return make


def _infer_adaptive3d(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.adaptive_avg_pool3d"
    x = tensor_arg(name, c, 0, "data")
    _layouts(name, c, {"layout": "NCDHW"})
    _rank(name, x, 5, "data (NCDHW)")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 5)
    size = c.attr("output_size")
    spatial = x.shape[2:] if size is None else tuple(dim(s) for s in size)
    return out_tensor((x.shape[0], x.shape[1], *spatial), x.dtype)


def adaptive_avg_pool3d(data: Any, output_size: Any = None, layout: str = "NCDHW",
                        out_layout: Any = None) -> rx.Call:
    size = None if output_size is None else _ints(output_size, 3)
    return call("relax.nn.adaptive_avg_pool3d", (data,), output_size=size, layout=layout)


register("relax.nn.conv3d", _infer_conv3d, conv3d, OUT_EWISE_FUSABLE)
register("relax.nn.conv3d_transpose",
         conv_transpose_inferer("relax.nn.conv3d_transpose", "NCDHW", "IODHW"),
         conv3d_transpose, OUT_EWISE_FUSABLE)
register("relax.nn.max_pool3d", _infer_pool3d, _pool3d_maker("relax.nn.max_pool3d", False),
         REDUCE)
register("relax.nn.avg_pool3d", _infer_pool3d, _pool3d_maker("relax.nn.avg_pool3d", True),
         REDUCE)
register("relax.nn.adaptive_avg_pool3d", _infer_adaptive3d, adaptive_avg_pool3d, REDUCE)
