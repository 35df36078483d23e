"""`topi.nn.pooling`: TVM's pooling entry points with TVM's signatures (pool type by name, a
layout string), over the NCHW computes of `topi.nn`."""

from __future__ import annotations

from typing import Any

from ... import te
from .. import transform as T
from . import pool2d_nchw as _pool2d_nchw

# The permutation that brings each supported layout to NCHW, and its inverse.
_TO_NCHW = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 3, 1, 2)}
_FROM_NCHW = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1)}


def _check(layout: str, pool_type: str) -> None:
    if layout not in _TO_NCHW:
        raise ValueError(f"pooling supports the layouts {sorted(_TO_NCHW)}, not {layout!r}")
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool_type must be 'max' or 'avg', not {pool_type!r}")


def _in_layout(fn: Any, data: te.Tensor, layout: str) -> te.Tensor:
    """`fn` on `data` seen as NCHW, its result given back in `layout`."""
    if layout == "NCHW":
        return fn(data)
    out = fn(T.transpose(data, _TO_NCHW[layout]))
    return T.transpose(out, _FROM_NCHW[layout])


def pool2d(data: te.Tensor, kernel: Any, stride: Any, dilation: Any, padding: Any,
           pool_type: str, ceil_mode: bool = False, layout: str = "NCHW",
           count_include_pad: bool = True) -> te.Tensor:
    """Max or average pooling over the H and W axes of `layout`; `padding` is
    (top, left, bottom, right), as TVM's `topi.nn.pool2d`."""
    _check(layout, pool_type)
    return _in_layout(lambda x: _pool2d_nchw(x, pool_type, kernel, stride, padding, dilation,
                                             ceil_mode, count_include_pad), data, layout)


def global_pool(data: te.Tensor, pool_type: str, layout: str = "NCHW") -> te.Tensor:
    """Pooling over the whole of H and W: an output of height and width 1."""
    _check(layout, pool_type)

    def nchw(x: te.Tensor) -> te.Tensor:
        # NOTE: a constant window keeps the average a multiplication by a constant
        kernel = tuple(getattr(d, "value", d) for d in x.shape[2:])
        return _pool2d_nchw(x, pool_type, kernel, (1, 1), (0, 0, 0, 0), (1, 1))
    return _in_layout(nchw, data, layout)


__all__ = ["global_pool", "pool2d"]
