"""Indexing and set operators: `slice_scatter`, `index_tensor`, `index_put` (legalized to te
computes), and `nonzero`, `unique`, `dynamic_strided_slice`, whose output shapes depend on the
data: as in TVM, they run as packed functions (`relax.run.nonzero`, ...; vm/set_builtins.py).
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from .base import (
    INJECTIVE, OPAQUE, as_expr, broadcast, call, fmt, norm_axis, op_error, register, same_dim,
    tensor_arg,
)


def _prim_int(c: rx.Call, i: int) -> int | None:
    v = getattr(c.args[i], "value", None)
    return v.value if isinstance(v, tx.IntImm) else None


def _infer_slice_scatter(c: rx.Call) -> si.StructInfo:
    name = "relax.slice_scatter"
    x, src = tensor_arg(name, c, 0, "input_tensor"), tensor_arg(name, c, 1, "src")
    if x.dtype and src.dtype and x.dtype != src.dtype:
        raise op_error(name, f"src has dtype {src.dtype}, input_tensor {x.dtype}")
    if x.shape is None or src.shape is None:
        return si.TensorStructInfo(x.shape, x.dtype, x.ndim)
    axis = norm_axis(name, c.attr("axis"), len(x.shape))
    if len(src.shape) != len(x.shape):
        raise op_error(name, f"src has rank {len(src.shape)}, input_tensor {len(x.shape)}")
    start, end, step = (_prim_int(c, i) for i in (2, 3, 4))
    n = x.shape[axis]
    if None not in (start, end, step) and isinstance(n, tx.IntImm):
        if step <= 0:  # type: ignore[operator]
            raise op_error(name, f"step must be positive, got {step}")
        count = len(range(*slice(start, end, step).indices(n.value)))
        want = x.shape[:axis] + (tx.const(count, "int64"),) + x.shape[axis + 1:]
        if any(same_dim(a, b) is False for a, b in zip(src.shape, want)):
            raise op_error(name, f"src has shape {fmt(src.shape)}; slice {start}:{end}:{step} "
                                 f"of axis {axis} needs {fmt(want)}")
    return x


def slice_scatter(input_tensor: Any, src: Any, start: Any, end: Any, step: Any,
                  axis: int = 0) -> rx.Call:
    """`input_tensor` with `src` written over its slice `start:end:step` of `axis`."""
    return call("relax.slice_scatter", (input_tensor, src, start, end, step), axis=int(axis))


def _index_list(name: str, c: rx.Call) -> list[si.TensorStructInfo]:
    fields = c.args[1].struct_info
    if not isinstance(fields, si.TupleStructInfo):
        raise op_error(name, "indices must be a tuple of integer tensors")
    out = []
    for k, f in enumerate(fields.fields):
        if not isinstance(f, si.TensorStructInfo) or (f.dtype and not f.dtype.startswith(
                ("int", "uint"))):
            raise op_error(name, f"indices[{k}] must be an integer tensor")
        out.append(f)
    return out


def _infer_index_tensor(c: rx.Call) -> si.StructInfo:
    name = "relax.index_tensor"
    x = tensor_arg(name, c, 0, "data")
    idx = _index_list(name, c)
    if x.ndim >= 0 and len(idx) > x.ndim:
        raise op_error(name, f"{len(idx)} index tensors for a rank-{x.ndim} tensor")
    if x.shape is None or any(i.shape is None for i in idx):
        return si.TensorStructInfo(None, x.dtype)
    shape: tuple[tx.PrimExpr, ...] | None = idx[0].shape
    for i in idx[1:]:
        shape = broadcast(name, shape, i.shape) if shape is not None else None
    if shape is None:
        return si.TensorStructInfo(None, x.dtype)
    return si.TensorStructInfo(tuple(shape) + tuple(x.shape[len(idx):]), x.dtype)


def index_tensor(data: Any, indices: Any) -> rx.Call:
    """numpy's advanced indexing: `data[indices[0], indices[1], ...]`."""
    return call("relax.index_tensor", (data, _tuple(indices)))


def _infer_index_put(c: rx.Call) -> si.StructInfo:
    name = "relax.index_put"
    x = tensor_arg(name, c, 0, "data")
    v = tensor_arg(name, c, 2, "values")
    idx = _index_list(name, c)
    if x.ndim >= 0 and len(idx) != x.ndim:
        raise op_error(name, f"needs one index tensor per dim of data ({x.ndim}), got "
                             f"{len(idx)}")
    if any(i.ndim not in (-1, 1) for i in idx):
        raise op_error(name, "each index tensor must be 1-d")
    if x.dtype and v.dtype and x.dtype != v.dtype:
        raise op_error(name, f"values have dtype {v.dtype}, data {x.dtype}")
    if v.ndim > 1:
        raise op_error(name, f"values must be a scalar or 1-d, got rank {v.ndim}")
    return x


def index_put(data: Any, indices: Any, values: Any, accumulate: bool = False) -> rx.Call:
    """`data` with `values` written (or added, `accumulate=True`) at `indices`."""
    return call("relax.index_put", (data, _tuple(indices), values), accumulate=bool(accumulate))


def _tuple(indices: Any) -> rx.Expr:
    if isinstance(indices, rx.Expr):
        return indices
    return as_expr(tuple(indices) if isinstance(indices, (list, tuple)) else (indices,))


def _infer_nonzero(c: rx.Call) -> si.StructInfo:
    tensor_arg("relax.nonzero", c, 0, "the input")
    return si.TensorStructInfo(None, "int64", 2)


def nonzero(x: Any) -> rx.Call:
    """The indices of the non-zero elements, one row per dim (int64, shape (ndim, count))."""
    return call("relax.nonzero", (x,))


def _infer_unique(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.unique", c, 0, "the input")
    flags = [bool(_prim_int(c, i)) for i in (2, 3, 4)]
    axis = _prim_int(c, 5) if len(c.args) > 5 else None
    if axis is not None and x.ndim >= 0:
        norm_axis("relax.unique", axis, x.ndim)
    values = si.TensorStructInfo(None, x.dtype, 1 if axis is None else x.ndim)
    extra = [si.TensorStructInfo(None, "int64", 1) for f in flags if f]
    return si.TupleStructInfo((values, *extra)) if extra else values


def unique(x: Any, sorted: Any = True, return_index: Any = False,  # noqa: A002 (TVM's name)
           return_inverse: Any = False, return_counts: Any = False, axis: Any = None
           ) -> rx.Call:
    """numpy.unique: the distinct values (sorted or in order of first appearance), and the
    first indices, inverse map and counts when asked."""
    args = [x] + [_flag(f) for f in (sorted, return_index, return_inverse, return_counts)]
    if axis is not None:
        args.append(as_expr(int(getattr(axis, "value", axis))))
    return call("relax.unique", tuple(args))


def _flag(v: Any) -> rx.Expr:
    if isinstance(v, rx.Expr):
        return v
    return as_expr(tx.const(bool(v), "bool"))


def _infer_dyn_slice(c: rx.Call) -> si.StructInfo:
    name = "relax.dynamic_strided_slice"
    x = tensor_arg(name, c, 0, "x")
    for i, what in ((1, "begin"), (2, "end"), (3, "strides")):
        s = tensor_arg(name, c, i, what)
        if s.ndim not in (-1, 1) or (s.dtype and not s.dtype.startswith("int")):
            raise op_error(name, f"{what} must be a 1-d integer tensor")
        if s.shape is not None and x.ndim >= 0 and same_dim(s.shape[0], tx.const(
                x.ndim, "int64")) is False:
            raise op_error(name, f"{what} has {fmt(s.shape)} values; x has rank {x.ndim}")
    return si.TensorStructInfo(None, x.dtype, x.ndim)


def dynamic_strided_slice(x: Any, begin: Any, end: Any, strides: Any) -> rx.Call:
    """`x[begin[0]:end[0]:strides[0], ...]` with the bounds given as tensors at run time."""
    return call("relax.dynamic_strided_slice", (x, begin, end, strides))


register("relax.slice_scatter", _infer_slice_scatter, slice_scatter, INJECTIVE)
register("relax.index_tensor", _infer_index_tensor, index_tensor, INJECTIVE)
register("relax.index_put", _infer_index_put, index_put, OPAQUE)
for _name, _infer, _make in (("nonzero", _infer_nonzero, nonzero),
                             ("unique", _infer_unique, unique),
                             ("dynamic_strided_slice", _infer_dyn_slice, dynamic_strided_slice)):
    register_op(f"relax.{_name}", infer_struct_info=_infer, make=_make, op_pattern=OPAQUE,
                vm_builtin=f"relax.run.{_name}")
