"""Converters of creation, flipping, variance and bucketing ATen ops (TVM 0.27's forms)."""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...ir.ops.base import scalar_const
from .ops_tensor import make, out_dtype
from .registry import converts


@converts("arange.start_step", "arange.start", "arange.default")
def _arange(node: Any, imp: Any) -> rx.Call:
    args = list(imp.retrieve_args(node))
    if len(args) == 1:  # arange(end)
        args = [0] + args
    start, end, step = (args + [1])[:3]
    return make("arange", start, end, step, dtype=out_dtype(node))


@converts("full_like.default")
def _full_like(node: Any, imp: Any) -> rx.Call:
    x, fill = imp.retrieve_args(node)[:2]
    fill = fill if isinstance(fill, rx.Expr) else scalar_const(fill, out_dtype(node))
    return make("full_like", x, fill)


@converts("flip.default")
def _flip(node: Any, imp: Any) -> Any:
    x, dims = imp.retrieve_args(node)
    for axis in dims:  # relax flips one axis per call
        x = imp.emit(make("flip", x, axis=axis))
    return x


@converts("var.correction", "var.dim", "var.default")
def _var(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    x, dims = a["self"], a.get("dim")
    axis = None if dims is None or dims == [] else list(dims)
    correction = a.get("correction")
    if correction is None:
        correction = 1 if a.get("unbiased", True) else 0
    out = imp.emit(make("variance", x, axis=axis, keepdims=bool(a.get("keepdim", False))))
    if correction == 0:
        return out
    shape = x.struct_info.shape
    count = 1
    for d in (range(len(shape)) if axis is None else axis):
        count *= int(shape[d])
    factor = count / (count - correction)  # torch's (n - correction) denominator
    return make("multiply", out, scalar_const(factor, out_dtype(node)))


@converts("bucketize.Tensor")
def _bucketize(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("bucketize", a["self"], a["boundaries"], out_int32=bool(a["out_int32"]),
                right=bool(a["right"]))
