"""Reordering and indexing operators: flip, tile, repeat, stack, one_hot, cumsum / cumprod,
gather_elements, gather_nd, scatter_elements, sort, argsort, topk."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OPAQUE, as_expr, call, dim, fmt, norm_axis, op_error, out_tensor, prod,
    register, same_dim, tensor_arg,
)
from .creation import prim_arg, prim_of


def _axis_of(name: str, c: rx.Call, x: si.TensorStructInfo) -> int | None:
    return None if x.ndim < 0 else norm_axis(name, c.attr("axis"), x.ndim)


def _infer_flip(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.flip", c, 0, "data")
    _axis_of("relax.flip", c, x)
    return x


def flip(data: Any, axis: int) -> rx.Call:
    return call("relax.flip", (data,), axis=int(axis))


def _infer_tile(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.tile", c, 0, "data")
    reps = c.attr("repeats")
    if any(r < 0 for r in reps):
        raise op_error("relax.tile", f"repeats must not be negative, got {reps}")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, -1 if x.ndim < 0 else max(x.ndim, len(reps)))
    n = max(len(x.shape), len(reps))
    shape = (dim(1),) * (n - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (n - len(reps)) + tuple(reps)
    return out_tensor(tuple(d * r for d, r in zip(shape, reps)), x.dtype)


def tile(data: Any, repeats: Any) -> rx.Call:
    reps = (repeats,) if isinstance(repeats, int) else tuple(int(r) for r in repeats)
    return call("relax.tile", (data,), repeats=reps)


def _infer_repeat(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.repeat", c, 0, "data")
    r = c.attr("repeats")
    if r < 0:
        raise op_error("relax.repeat", f"repeats must not be negative, got {r}")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 1 if c.attr("axis") is None else x.ndim)
    if c.attr("axis") is None:
        return out_tensor((prod(x.shape) * r,), x.dtype)
    axis = norm_axis("relax.repeat", c.attr("axis"), len(x.shape))
    return out_tensor(tuple(d * r if i == axis else d for i, d in enumerate(x.shape)), x.dtype)


def repeat(data: Any, repeats: int, axis: int | None = None) -> rx.Call:
    return call("relax.repeat", (data,), repeats=int(repeats), axis=axis)


def _infer_stack(c: rx.Call) -> si.StructInfo:
    items = c.args[0].struct_info
    if not isinstance(items, si.TupleStructInfo) or not items.fields:
        raise op_error("relax.stack", "takes a non-empty tuple of tensors")
    ts = [f for f in items.fields if isinstance(f, si.TensorStructInfo)]
    if len(ts) != len(items.fields):
        raise op_error("relax.stack", "every item must be a tensor")
    first = ts[0]
    for k, t in enumerate(ts[1:], 1):
        if t.dtype != first.dtype:
            raise op_error("relax.stack", f"item {k} has dtype {t.dtype}, item 0 {first.dtype}")
        if t.shape is not None and first.shape is not None and (
                len(t.shape) != len(first.shape) or
                any(same_dim(a, b) is False for a, b in zip(t.shape, first.shape))):
            raise op_error("relax.stack", f"item {k} has shape {fmt(t.shape)}, item 0 "
                                          f"{fmt(first.shape)}: stacked tensors must match")
    if first.shape is None:
        return si.TensorStructInfo(None, first.dtype, first.ndim + 1 if first.ndim >= 0 else -1)
    axis = norm_axis("relax.stack", c.attr("axis"), len(first.shape) + 1)
    shape = first.shape[:axis] + (dim(len(ts)),) + first.shape[axis:]
    return out_tensor(shape, first.dtype)


def stack(tensors: Any, axis: int = 0) -> rx.Call:
    return call("relax.stack", (as_expr(list(tensors)) if isinstance(tensors, (list, tuple))
                                else tensors,), axis=int(axis))


def _infer_one_hot(c: rx.Call) -> si.StructInfo:
    ind = tensor_arg("relax.one_hot", c, 0, "indices")
    if ind.dtype and not ind.dtype.startswith(("int", "uint")):
        raise op_error("relax.one_hot", f"indices must be integers, got {ind.dtype}")
    on = prim_of("relax.one_hot", c, 1, "on_value")
    off = prim_of("relax.one_hot", c, 2, "off_value")
    if on.dtype != off.dtype:
        raise op_error("relax.one_hot", f"on_value ({on.dtype}) and off_value ({off.dtype}) "
                                        f"must have one dtype")
    if c.attr("depth") <= 0:
        raise op_error("relax.one_hot", f"depth must be positive, got {c.attr('depth')}")
    if ind.shape is None:
        return si.TensorStructInfo(None, on.dtype, ind.ndim + 1 if ind.ndim >= 0 else -1)
    axis = norm_axis("relax.one_hot", c.attr("axis"), len(ind.shape) + 1)
    shape = ind.shape[:axis] + (dim(c.attr("depth")),) + ind.shape[axis:]
    return out_tensor(shape, on.dtype)


def one_hot(indices: Any, on_value: Any, off_value: Any, depth: int, axis: int = -1
            ) -> rx.Call:
    dtype = "float32" if isinstance(on_value, float) else None
    return call("relax.one_hot", (indices, prim_arg(on_value, dtype), prim_arg(off_value, dtype)),
                depth=int(depth), axis=int(axis))


def _infer_cum(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    dtype = c.attr("dtype") or x.dtype
    if c.attr("axis") is None:
        return out_tensor((prod(x.shape),), dtype) if x.shape is not None else \
            si.TensorStructInfo(None, dtype, 1)
    _axis_of(name, c, x)
    return si.TensorStructInfo(x.shape, dtype, x.ndim)


def _cum_maker(name: str) -> Any:
    def make(data: Any, axis: int | None = None, dtype: Any = None, exclusive: bool = False
             ) -> rx.Call:
        return call(name, (data,), axis=axis, dtype=None if dtype is None else str(dtype),
                    exclusive=bool(exclusive))
    make.__name__ = name.split(".")[-1]
    return make


def _index_tensor(name: str, c: rx.Call, i: int) -> si.TensorStructInfo:
    t = tensor_arg(name, c, i, "indices")
    if t.dtype and not t.dtype.startswith(("int", "uint")):
        raise op_error(name, f"indices must be integers, got {t.dtype}")
    return t


def _infer_gather_elements(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.gather_elements", c, 0, "data")
    ind = _index_tensor("relax.gather_elements", c, 1)
    if x.ndim >= 0 and ind.ndim >= 0 and x.ndim != ind.ndim:
        raise op_error("relax.gather_elements", f"data (rank {x.ndim}) and indices (rank "
                                                f"{ind.ndim}) must have the same rank")
    _axis_of("relax.gather_elements", c, x)
    return si.TensorStructInfo(ind.shape, x.dtype, ind.ndim)


def gather_elements(data: Any, indices: Any, axis: int = 0) -> rx.Call:
    return call("relax.gather_elements", (data, indices), axis=int(axis))


def _infer_gather_nd(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.gather_nd", c, 0, "data")
    ind = _index_tensor("relax.gather_nd", c, 1)
    b = c.attr("batch_dims")
    if x.shape is None or ind.shape is None:
        return si.TensorStructInfo(None, x.dtype, -1)
    m = ind.shape[-1]
    if not isinstance(m, tx.IntImm):
        raise op_error("relax.gather_nd", "the last dim of indices must be static")
    if m.value + b > len(x.shape):
        raise op_error("relax.gather_nd", f"indices address {m.value} dims after {b} batch dims "
                                          f"but data {fmt(x.shape)} has {len(x.shape)}")
    return out_tensor(tuple(ind.shape[:-1]) + tuple(x.shape[b + m.value:]), x.dtype)


def gather_nd(data: Any, indices: Any, batch_dims: int = 0) -> rx.Call:
    return call("relax.gather_nd", (data, indices), batch_dims=int(batch_dims))


def _infer_scatter(c: rx.Call) -> si.StructInfo:
    name = "relax.scatter_elements"
    x = tensor_arg(name, c, 0, "data")
    ind = _index_tensor(name, c, 1)
    upd = tensor_arg(name, c, 2, "updates")
    if upd.dtype and x.dtype and upd.dtype != x.dtype:
        raise op_error(name, f"updates ({upd.dtype}) must have data's dtype ({x.dtype})")
    if ind.shape is not None and upd.shape is not None and (
            len(ind.shape) != len(upd.shape) or
            any(same_dim(a, b) is False for a, b in zip(ind.shape, upd.shape))):
        raise op_error(name, f"indices {fmt(ind.shape)} and updates {fmt(upd.shape)} must "
                             f"have one shape")
    if c.attr("reduction") not in ("update", "add", "mul", "mean", "min", "max"):
        raise op_error(name, f"reduction must be update, add, mul, mean, min or max, got "
                             f"{c.attr('reduction')!r}")
    _axis_of(name, c, x)
    return x


def scatter_elements(data: Any, indices: Any, updates: Any, axis: int = 0,
                     reduction: str = "update") -> rx.Call:
    return call("relax.scatter_elements", (data, indices, updates), axis=int(axis),
                reduction=str(reduction))


def _infer_sort(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    _axis_of(name, c, x)
    if name == "relax.argsort":
        return si.TensorStructInfo(x.shape, c.attr("dtype"), x.ndim)
    return x


def sort(x: Any, axis: int = -1, descending: bool = False) -> rx.Call:
    return call("relax.sort", (x,), axis=int(axis), descending=bool(descending))


def argsort(data: Any, axis: int = -1, descending: bool = False, dtype: Any = "int32"
            ) -> rx.Call:
    return call("relax.argsort", (data,), axis=int(axis), descending=bool(descending),
                dtype=str(dtype))


def _infer_topk(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.topk", c, 0, "data")
    axis, k, kind = _axis_of("relax.topk", c, x), c.attr("k"), c.attr("ret_type")
    if kind not in ("both", "values", "indices"):
        raise op_error("relax.topk", f"ret_type must be both, values or indices, got {kind!r}")
    if x.shape is None:
        vals = si.TensorStructInfo(None, x.dtype, x.ndim)
    else:
        n = x.shape[axis]
        if isinstance(n, tx.IntImm) and not 0 < k <= n.value:
            raise op_error("relax.topk", f"k={k} is out of range for an axis of {n.value}")
        vals = out_tensor(tuple(dim(k) if i == axis else d for i, d in enumerate(x.shape)),
                          x.dtype)
    idx = si.TensorStructInfo(vals.shape, c.attr("dtype"), vals.ndim)
    return {"both": si.TupleStructInfo((vals, idx)), "values": vals, "indices": idx}[kind]


def topk(data: Any, k: int = 1, axis: int = -1, ret_type: str = "both", largest: bool = True,
         dtype: Any = "int32") -> rx.Call:
    return call("relax.topk", (data,), k=int(k), axis=int(axis), ret_type=str(ret_type),
                largest=bool(largest), dtype=str(dtype))


register("relax.flip", _infer_flip, flip, INJECTIVE)
register("relax.tile", _infer_tile, tile, INJECTIVE)
register("relax.repeat", _infer_repeat, repeat, INJECTIVE)
register("relax.stack", _infer_stack, stack, INJECTIVE)
register("relax.one_hot", _infer_one_hot, one_hot, INJECTIVE)
register("relax.cumsum", _infer_cum, _cum_maker("relax.cumsum"), OPAQUE)
register("relax.cumprod", _infer_cum, _cum_maker("relax.cumprod"), OPAQUE)
register("relax.gather_elements", _infer_gather_elements, gather_elements, INJECTIVE)
register("relax.gather_nd", _infer_gather_nd, gather_nd, INJECTIVE)
register("relax.scatter_elements", _infer_scatter, scatter_elements, OPAQUE)
register("relax.sort", _infer_sort, sort, OPAQUE)
register("relax.argsort", _infer_sort, argsort, OPAQUE)
register("relax.topk", _infer_topk, topk, OPAQUE)
