"""`topi.nn.conv2d` and `topi.nn.upsampling` with TVM's signatures, over tvmlite's plain
convolution (topi/conv_plain.py) and resize (topi/nn_ext.py) computes."""

from __future__ import annotations

from typing import Any

from ... import te
from .. import transform as T
from ..conv_plain import conv
from ..nn_ext import resize2d

_DEFAULT_KERNEL = {"NCHW": "OIHW", "NHWC": "HWIO"}


def _pair(v: Any) -> tuple[Any, Any]:
    return (v, v) if isinstance(v, int) else tuple(v)


def conv2d(input: te.Tensor, filter: te.Tensor, strides: Any, padding: Any,  # noqa: A002
           dilation: Any, data_layout: str = "NCHW", kernel_layout: str = "",
           out_dtype: str | None = None) -> te.Tensor:
    """A 2-d convolution in `data_layout` (NCHW or NHWC); an int stride, padding or
    dilation applies to both spatial dims, as in TVM."""
    if data_layout not in _DEFAULT_KERNEL:
        raise ValueError(f"topi.nn.conv2d supports NCHW and NHWC data, not {data_layout!r}")
    pad = _pair(padding)
    return conv(input, filter, _pair(strides), pad if len(pad) == 4 else pad * 2,
                _pair(dilation), 1, data_layout, kernel_layout or _DEFAULT_KERNEL[data_layout],
                out_dtype)


def upsampling(data: te.Tensor, scale_h: float, scale_w: float, layout: str = "NCHW",
               method: str = "nearest_neighbor", align_corners: bool = False,
               output_shape: Any = None) -> te.Tensor:
    """Resize by a factor per spatial dim (TVM's `topi.nn.upsampling`): nearest neighbour or
    (bi)linear, coordinates `asymmetric` or `align_corners`."""
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"topi.nn.upsampling supports NCHW and NHWC, not {layout!r}")
    if output_shape is not None:
        raise NotImplementedError("topi.nn.upsampling(output_shape=...) is not supported")
    x = data if layout == "NCHW" else T.transpose(data, (0, 3, 1, 2))
    size = tuple(int(round(int(d) * s)) for d, s in zip(x.shape[2:], (scale_h, scale_w)))
    method = method[2:] if method.startswith("bi") else method
    coords = "align_corners" if align_corners else "asymmetric"
    out = resize2d(x, size, method, coords, "", data.dtype)
    return out if layout == "NCHW" else T.transpose(out, (0, 2, 3, 1))
