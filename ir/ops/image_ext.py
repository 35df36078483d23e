"""More `R.image` operators: `resize3d` (NCDHW) and `grid_sample` (NCHW data, a (N, 2, H, W)
grid of x, y sampling positions in [-1, 1]), with TVM 0.27's attributes."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import INJECTIVE, call, op_error, out_tensor, register, same_dim, tensor_arg
from .nn_ext import RESIZE_COORDS, RESIZE_METHODS, _layouts, _rank

GRID_METHODS = ("bilinear", "nearest")
GRID_PADDING = ("zeros", "border")


def _infer_resize3d(c: rx.Call) -> si.StructInfo:
    name = "relax.image.resize3d"
    x = tensor_arg(name, c, 0, "data")
    _layouts(name, c, {"layout": "NCDHW"})
    _rank(name, x, 5, "data (NCDHW)")
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
        return si.TensorStructInfo(None, dtype, 5)
    if len(dims) != 3:
        raise op_error(name, f"size must give 3 dims (depth, height, width), got {len(dims)}")
    return out_tensor((x.shape[0], x.shape[1], *dims), dtype)


def resize3d(data: Any, size: Any, roi: Any = None, layout: str = "NCDHW",
             method: str = "linear", coordinate_transformation_mode: str = "half_pixel",
             rounding_method: str = "", cubic_alpha: float = -0.75, cubic_exclude: int = 0,
             extrapolation_value: float = 0.0, out_dtype: Any = None) -> rx.Call:
    from .manipulate import _as_shape

    items = (size,) * 3 if isinstance(size, (int, tx.PrimExpr)) else size
    return call("relax.image.resize3d", (data, _as_shape(items)), layout=layout,
                method=str(method), coordinate_transformation_mode=str(
                    coordinate_transformation_mode), rounding_method=str(rounding_method),
                out_dtype=None if str(out_dtype) in ("void", "None", "") else str(out_dtype))


def _infer_grid_sample(c: rx.Call) -> si.StructInfo:
    name = "relax.image.grid_sample"
    x, grid = tensor_arg(name, c, 0, "data"), tensor_arg(name, c, 1, "grid")
    _layouts(name, c, {"layout": "NCHW"})
    _rank(name, x, 4, "data (NCHW)")
    _rank(name, grid, 4, "grid (N, 2, H, W)")
    if c.attr("method") not in GRID_METHODS:
        raise op_error(name, f"method must be one of {GRID_METHODS}, got {c.attr('method')!r}")
    if c.attr("padding_mode") not in GRID_PADDING:
        raise op_error(name, f"padding_mode must be one of {GRID_PADDING}, got "
                             f"{c.attr('padding_mode')!r}")
    if x.shape is None or grid.shape is None:
        return si.TensorStructInfo(None, x.dtype, 4)
    if same_dim(grid.shape[1], tx.const(2, "int64")) is False:
        raise op_error(name, "grid must hold 2 coordinates (x, y) on axis 1")
    return out_tensor((x.shape[0], x.shape[1], grid.shape[2], grid.shape[3]), x.dtype)


def grid_sample(data: Any, grid: Any, method: str = "bilinear", layout: str = "NCHW",
                padding_mode: str = "zeros", align_corners: bool = False) -> rx.Call:
    return call("relax.image.grid_sample", (data, grid), method=str(method), layout=layout,
                padding_mode=str(padding_mode), align_corners=bool(align_corners))


def _infer_affine_grid(c: rx.Call) -> si.StructInfo:
    """theta (N, 2, 3) gives a (N, 2, H, W) grid; theta (N, 3, 4) a (N, 3, D, H, W) one."""
    name = "relax.image.affine_grid"
    theta = tensor_arg(name, c, 0, "data")
    size = c.args[1]
    dims = size.values if isinstance(size, rx.ShapeExpr) else getattr(
        size.struct_info, "values", None)
    if theta.ndim not in (-1, 3):
        raise op_error(name, f"data must be a 3-d affine matrix (N, 2, 3) or (N, 3, 4), got "
                             f"rank {theta.ndim}")
    if dims is None or theta.shape is None:
        return si.TensorStructInfo(None, theta.dtype, -1 if dims is None else len(dims) + 2)
    if len(dims) not in (2, 3) or same_dim(theta.shape[1], tx.const(len(dims), "int64")) \
            is False:
        raise op_error(name, f"size {tuple(dims)} needs a matrix of {len(dims)} rows, got "
                             f"data of shape {tuple(theta.shape)}")
    return out_tensor((theta.shape[0], tx.const(len(dims), "int64"), *dims), theta.dtype)


def affine_grid(data: Any, size: Any, align_corners: bool = True) -> rx.Call:
    from .manipulate import _as_shape

    items = (size, size) if isinstance(size, (int, tx.PrimExpr)) else size
    return call("relax.image.affine_grid", (data, _as_shape(items)),
                align_corners=bool(align_corners))


register("relax.image.affine_grid", _infer_affine_grid, affine_grid, INJECTIVE)
register("relax.image.resize3d", _infer_resize3d, resize3d, INJECTIVE)
register("relax.image.grid_sample", _infer_grid_sample, grid_sample, INJECTIVE)
