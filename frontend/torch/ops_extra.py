"""Converters of scans, norms, einsum, median, copies and index writes (TVM 0.27's forms):
cumsum / cumprod, atan2, einsum, median, linalg_vector_norm / norm, any, elu, eye, copy,
scatter, slice_scatter, index.Tensor and index_put."""

from __future__ import annotations

import math

from typing import Any

from ...ir import expr as rx
from ...ir.ops.base import as_expr, scalar_const
from .ops_tensor import make, out_dtype
from .registry import converts
from .symbolic import dtype_name


def _dtype_kwarg(node: Any) -> str | None:
    dtype = node.kwargs.get("dtype")
    return None if dtype is None else dtype_name(dtype)


@converts("cumsum.default")
def _cumsum(node: Any, imp: Any) -> rx.Call:
    x, dim = imp.retrieve_args(node)[:2]
    return make("cumsum", x, axis=dim, dtype=_dtype_kwarg(node))


@converts("cumprod.default")
def _cumprod(node: Any, imp: Any) -> rx.Call:
    x, dim = imp.retrieve_args(node)[:2]
    return make("cumprod", x, axis=dim, dtype=_dtype_kwarg(node))


@converts("atan2.default")
def _atan2(node: Any, imp: Any) -> rx.Call:
    a, b = imp.retrieve_args(node)[:2]
    return make("atan2", a, b)


@converts("einsum.default")
def _einsum(node: Any, imp: Any) -> rx.Call:
    equation, operands = imp.retrieve_args(node)[:2]
    return make("einsum", as_expr(tuple(operands)), equation)


@converts("median.dim", "median.default")
def _median(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("median", a["self"], axis=a.get("dim"), keepdims=bool(a.get("keepdim", False)))


@converts("linalg_vector_norm.default")
def _vector_norm(node: Any, imp: Any) -> rx.Var:
    """(sum |x| ** ord) ** (1 / ord) over `dim`, one binding per step as TVM."""
    a = imp.named_args(node)
    x, order = a["self"], float(a.get("ord", 2.0))
    dtype = x.struct_info.dtype
    if order in (math.inf, -math.inf):  # the largest / smallest magnitude
        return make("max" if order > 0 else "min", imp.emit(make("abs", x)), axis=a.get("dim"),
                    keepdims=bool(a["keepdim"]))
    powered = imp.emit(make("power", imp.emit(make("abs", x)), scalar_const(order, dtype)))
    reduced = imp.emit(make("sum", powered, axis=a.get("dim"), keepdims=bool(a["keepdim"])))
    return imp.emit(make("power", reduced, scalar_const(1.0 / order, dtype)))


@converts("any.dim", "any.default", "any.dims")
def _any(node: Any, imp: Any) -> rx.Call:
    args = imp.retrieve_args(node)
    x = args[0]
    dim = args[1] if len(args) > 1 else node.kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else node.kwargs.get("keepdim", False)
    if x.struct_info.dtype == "bool":  # max over int8, back to bool
        return make("astype", make("max", make("astype", x, "int8"), dim, keepdims=keepdim),
                    "bool")
    return make("max", x, dim, keepdims=keepdim)


@converts("elu.default")
def _elu(node: Any, imp: Any) -> rx.Call:
    """elu(x) = relu(x) - alpha * relu(1 - exp(x)), in TVM's arrangement."""
    args = imp.retrieve_args(node)
    x = args[0]
    alpha = args[1] if len(args) > 1 else node.kwargs.get("alpha", 1.0)
    dtype = x.struct_info.dtype
    negative = make("multiply", scalar_const(-alpha, dtype),
                    make("nn.relu", make("subtract", scalar_const(1, dtype), make("exp", x))))
    return make("add", negative, make("nn.relu", x))


@converts("eye.default", "eye.m")
def _eye(node: Any, imp: Any) -> rx.Call:
    args = imp.retrieve_args(node)
    n = args[0]
    m = args[1] if len(args) > 1 else n
    return make("eye", n, m, dtype=out_dtype(node))


@converts("copy.default", "copy_.default")
def _copy(node: Any, imp: Any) -> Any:
    """`dest.copy_(src)`: src in dest's dtype and shape (the value dest now holds)."""
    dest, src = imp.retrieve_args(node)[:2]
    if src.struct_info.dtype != dest.struct_info.dtype:
        src = imp.emit(make("astype", src, dest.struct_info.dtype))
    # NOTE: broadcast even to the same shape, as TVM 0.27 does (it compares the two shape
    # objects, which are never the same object)
    return imp.emit(make("broadcast_to", src, dest.struct_info.shape))


@converts("scatter.src", "scatter.value")
def _scatter(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    x, index = a["self"], a["index"]
    src = a.get("src")
    if src is None:  # scatter.value: a scalar broadcast to the index's shape
        fill = scalar_const(a["value"], x.struct_info.dtype)
        src = imp.emit(make("broadcast_to", fill, index.struct_info.shape))
    return make("scatter_elements", x, index, src, axis=a["dim"])


@converts("slice_scatter.default")
def _slice_scatter(node: Any, imp: Any) -> rx.Call:
    from ...script.relax import prim_value

    a = imp.named_args(node)
    x, dim = a["self"], a["dim"]
    length = x.struct_info.shape[dim]

    def bound(v: Any, default: Any) -> Any:
        v = default if v is None else v
        if isinstance(v, int) and isinstance(getattr(length, "value", None), int):
            if v < 0:
                v += length.value
            v = min(v, length.value)
        return prim_value(v) if isinstance(v, int) else v

    start = bound(a.get("start"), 0)
    end = bound(a.get("end"), getattr(length, "value", length))
    return make("slice_scatter", x, a["src"], start, end, prim_value(a.get("step") or 1),
                axis=dim)


@converts("index.Tensor")
def _index(node: Any, imp: Any) -> rx.Call:
    """`x[idx]` with index tensors: take along the one indexed axis, else index_tensor."""
    x, indices = imp.retrieve_args(node)[:2]
    given = [(axis, i) for axis, i in enumerate(indices) if i is not None]
    if len(given) == 1:
        axis, index = given[0]
        return make("take", x, index, axis=axis)
    if len(given) == len(indices):
        return make("index_tensor", x, as_expr(tuple(i for _, i in given)))
    if _orthogonal(given):  # x[:, :, rows, cols] with rows (H, 1), cols (W,): one take each
        result = x
        for axis, index in reversed(given):
            if index.struct_info.ndim > 1:
                index = imp.emit(make("squeeze", index))
            result = imp.emit(make("take", result, index, axis=axis))
        return result
    raise NotImplementedError("index.Tensor with some axes left unindexed (None) beside "
                              "several index tensors is only supported for index tensors "
                              "that each vary along their own axis (an outer product)")


def _orthogonal(given: list[tuple[int, Any]]) -> bool:
    """Index tensors on consecutive axes a..a+k-1 where the j-th varies only along dim j of
    their k-d broadcast: indexing with them is a take per axis (TVM 0.27's squeeze-and-take
    form, here only where it is exact)."""
    k = len(given)
    if [axis for axis, _ in given] != list(range(given[0][0], given[0][0] + k)):
        return False
    for j, (_, index) in enumerate(given):
        shape = index.struct_info.shape
        if shape is None or len(shape) > k:
            return False
        dims = [1] * (k - len(shape)) + [getattr(d, "value", None) for d in shape]
        if any(d != 1 for i, d in enumerate(dims) if i != j):
            return False
    return True


@converts("index_put.default", "index_put_.default")
def _index_put(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    indices = a["indices"]
    if any(i is None for i in indices):
        raise NotImplementedError("index_put with unindexed (None) axes is not supported")
    return make("index_put", a["self"], as_expr(tuple(indices)), a["values"],
                bool(a.get("accumulate", False)))
