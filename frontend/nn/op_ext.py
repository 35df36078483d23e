"""More functional nn operators (TVM 0.27's `nn.op` beyond the basics): 1-d/3-d convolutions,
padding and resizing, activations, normalizations, creation, scans, sorting and attention.
Each emits the relax operator TVM's version emits, with the same arguments."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ...ir import expr as rx
from ...ir.ops.base import const, shape_expr
from ...tir import expr as tx
from .core import Tensor, get_default_dtype
from .op import _emit, _op

__all__ = [
    "conv1d", "conv3d", "conv1d_transpose", "repeat", "relu6", "softplus", "prelu", "arange",
    "group_norm", "triu", "full", "empty", "pad", "interpolate", "cumsum", "sort", "argsort",
    "topk", "get_timestep_embedding", "scaled_dot_product_attention",
]


def _with_bias(conv: rx.Call, bias: Tensor | None, weight: Tensor, ndim: int,
               channel_axis: int = 1) -> rx.Call:
    """`conv + bias` with the bias reshaped to broadcast over the channel axis."""
    if bias is None:
        return conv
    shape = [1] * ndim
    shape[channel_axis] = weight.shape[0]
    return _op("add", conv, _op("reshape", bias, tuple(shape)))


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, name: str = "conv1d"
           ) -> Tensor:
    conv = _op("nn.conv1d", x, weight, strides=stride, padding=padding, dilation=dilation,
               groups=groups)
    return _emit(_with_bias(conv, bias, weight, 3), name)


def conv3d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, data_layout: str = "NCDHW",
           name: str = "conv3d") -> Tensor:
    if data_layout not in ("NCDHW", "NDHWC"):
        raise ValueError(f"nn.op.conv3d: data_layout {data_layout!r} is not NCDHW or NDHWC")
    conv = _op("nn.conv3d", x, weight, strides=stride, padding=padding, dilation=dilation,
               groups=groups, data_layout=data_layout)
    return _emit(_with_bias(conv, bias, weight, 5, 1 if data_layout == "NCDHW" else 4), name)


def conv1d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, dilation: Any = 1,
                     groups: int = 1, name: str = "conv1d_transpose") -> Tensor:
    conv = _op("nn.conv1d_transpose", x, weight, strides=stride, padding=padding,
               output_padding=output_padding, dilation=dilation, groups=groups)
    if bias is None:
        return _emit(conv, name)
    # an IOW weight: the output channels are its second dim (times the groups)
    channels = conv.struct_info.shape[1]
    return _emit(_op("add", conv, _op("reshape", bias, (1, channels, 1))), name)


def repeat(x: Tensor, repeats: int, axis: int | None = None, name: str = "repeat") -> Tensor:
    return _emit(_op("repeat", x, repeats, axis), name)


def relu6(x: Tensor, name: str = "relu6") -> Tensor:
    return _emit(_op("nn.relu6", x), name)


def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0, name: str = "softplus"
             ) -> Tensor:
    return _emit(_op("nn.softplus", x, beta=beta, threshold=threshold), name)


def prelu(x: Tensor, alpha: Tensor, name: str = "prelu") -> Tensor:
    return _emit(_op("nn.prelu", x, alpha), name)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: str | None = "float32",
           name: str = "arange") -> Tensor:
    return _emit(_op("arange", start, end, step, dtype), name)


def group_norm(x: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None,
               eps: float = 1e-5, channel_axis: int = 1, axes: list[int] | None = None,
               name: str = "group_norm") -> Tensor:
    axes = list(range(2, x.ndim)) if axes is None else list(axes)
    if weight is None or bias is None:  # no affine part: scale 1, shift 0
        channels = x.shape[channel_axis]
        if not isinstance(channels, int):
            raise ValueError("nn.op.group_norm without weight/bias needs a static channel "
                             f"count, got {channels}")
        weight = const(np.ones(channels, x.dtype)) if weight is None else weight
        bias = const(np.zeros(channels, x.dtype)) if bias is None else bias
    return _emit(_op("nn.group_norm", x, weight, bias, num_groups, channel_axis=channel_axis,
                     axes=axes, epsilon=eps), name)


def triu(x: Tensor, diagonal: int = 0, name: str = "triu") -> Tensor:
    return _emit(_op("triu", x, diagonal), name)


def full(shape: Sequence[Any], fill_value: Any, dtype: str = "float32", name: str = "full"
         ) -> Tensor:
    """`fill_value` may be a Python number, a tir.IntImm/FloatImm or a 0-d nn.Tensor."""
    if isinstance(fill_value, (tx.IntImm, tx.FloatImm)):
        fill_value = const(fill_value.value, dtype)
    elif isinstance(fill_value, (int, float)):
        fill_value = const(fill_value, dtype)
    return _emit(_op("full", tuple(shape), fill_value, dtype), name)


def empty(shape: Sequence[Any], dtype: str = "float32", name: str = "empty") -> Tensor:
    """An uninitialised tensor (`R.builtin.alloc_tensor`)."""
    return _emit(_op("builtin.alloc_tensor", shape_expr(shape), dtype, runtime_device_index=0),
                 name)


def pad(x: Tensor, pad: list[int], mode: str = "constant", value: float = 0.0,
        name: str = "pad") -> Tensor:
    return _emit(_op("nn.pad", x, pad_width=pad, pad_mode=mode, pad_value=value), name)


def interpolate(x: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool | None = None, data_layout: str = "NCHW",
                name: str = "interpolate") -> Tensor:
    """torch's `F.interpolate` as `R.image.resize2d` (nearest, (bi)linear, (bi)cubic)."""
    if recompute_scale_factor is not None or antialias is not None:
        raise ValueError("nn.op.interpolate: recompute_scale_factor and antialias are not "
                         "supported")
    if size is None:
        spatial = [i for i, d in enumerate(data_layout) if d not in "NC"]
        factors = scale_factor if isinstance(scale_factor, (list, tuple)) else \
            [scale_factor] * len(spatial)
        size = [int(x.shape[i] * f) for i, f in zip(spatial, factors)]
    elif isinstance(size, int):
        size = [size, size]
    if mode.startswith("nearest"):
        mode, coord = "nearest_neighbor", "asymmetric"
    else:
        mode = mode[2:] if mode.startswith("bi") else mode
        coord = "align_corners" if align_corners else "half_pixel"
    return _emit(_op("image.resize2d", x, tuple(size), layout=data_layout, method=mode,
                     coordinate_transformation_mode=coord), name)


def cumsum(data: Tensor, axis: int | None = None, dtype: str | None = None,
           exclusive: bool | None = None, name: str = "cumsum") -> Tensor:
    return _emit(_op("cumsum", data, axis, dtype, bool(exclusive)), name)


def sort(x: Tensor, axis: int = -1, descending: bool = False, name: str = "sort") -> Tensor:
    return _emit(_op("sort", x, axis, descending), name)


def argsort(data: Tensor, axis: int = -1, descending: bool = False, dtype: str = "int32",
            name: str = "argsort") -> Tensor:
    return _emit(_op("argsort", data, axis, descending, dtype), name)


def topk(data: Tensor, k: int = 1, axis: int = -1, ret_type: str = "both",
         largest: bool = True, dtype: str = "int32", name: str = "topk") -> Any:
    return _emit(_op("topk", data, k, axis, ret_type, largest, dtype), name)


def get_timestep_embedding(x: Tensor, embedding_dim: int, flip_sin_to_cos: bool = False,
                           downscale_freq_shift: float = 1, scale: float = 1,
                           max_period: int = 10000, name: str = "get_timestep_embedding"
                           ) -> Tensor:
    """Diffusion models' sinusoidal timestep embedding (TVM's form, op for op)."""
    steps = _op("astype", x, "float32")
    half = embedding_dim // 2
    exponent = _op("multiply", const(-math.log(max_period), "float32"),
                   _op("arange", 0, half, 1, "float32"))
    exponent = _op("divide", exponent, const(half - downscale_freq_shift, "float32"))
    emb = _op("multiply", _op("expand_dims", steps, [1]),
              _op("expand_dims", _op("exp", exponent), [0]))
    if scale != 1:
        emb = _op("multiply", const(scale, "float32"), emb)
    parts = [_op("cos", emb), _op("sin", emb)] if flip_sin_to_cos else \
        [_op("sin", emb), _op("cos", emb)]
    emb = _op("concat", parts, axis=-1)
    if embedding_dim % 2 == 1:
        emb = _op("nn.pad", emb, pad_width=(0, 1, 0, 0))
    return _emit(_op("astype", emb, get_default_dtype()), name)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, is_causal: bool = False,
                                 scale: float | None = None,
                                 name: str = "scaled_dot_product_attention") -> Tensor:
    """`R.nn.attention` over (batch, seq, heads, dim) tensors."""
    if attn_mask is not None:
        raise ValueError("nn.op.scaled_dot_product_attention: attn_mask is not supported; "
                         "use is_causal=True for a causal mask")
    return _emit(_op("nn.attention", query, key, value, scale=scale,
                     causal_mask="TopLeft" if is_causal else None), name)

