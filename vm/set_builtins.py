"""`relax.run.nonzero`, `relax.run.unique`, `relax.run.dynamic_strided_slice`: the packed
functions TVM runs these operators with (their output shapes depend on the data), in numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ndarray import NDArray, as_ndarray
from .registry import register_func
from .builtins import shape_to_tensor as _shape_to_tensor


def _array(x: Any, what: str) -> np.ndarray:
    if isinstance(x, NDArray):
        return x.numpy()
    if isinstance(x, np.ndarray):
        return x
    raise TypeError(f"{what}: expected a tensor, got {type(x).__name__}")


def nonzero(x: Any) -> NDArray:
    """Indices of the non-zero elements: int64, one row per dim of `x`."""
    data = _array(x, "relax.run.nonzero")
    return as_ndarray(np.ascontiguousarray(np.array(np.nonzero(data), dtype="int64").reshape(
        data.ndim, -1)))


def unique(x: Any, is_sorted: Any = True, return_index: Any = False,
           return_inverse: Any = False, return_counts: Any = False, axis: Any = None) -> Any:
    """numpy.unique; `is_sorted=False` keeps the values in order of first appearance."""
    data = _array(x, "relax.run.unique")
    values, index, inverse, counts = np.unique(data, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not bool(is_sorted):  # NOTE: reorder by first appearance, remapping the inverse
        order = np.argsort(index, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = np.take(values, order, axis=0 if axis is None else axis)
        index, counts, inverse = index[order], counts[order], rank[inverse]
    outs = [values] + [a.astype("int64") for a, want in (
        (index, return_index), (inverse, return_inverse), (counts, return_counts)) if want]
    arrays = [as_ndarray(np.ascontiguousarray(a)) for a in outs]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def dynamic_strided_slice(x: Any, begin: Any, end: Any, strides: Any) -> NDArray:
    """`x[begin[0]:end[0]:strides[0], ...]`, bounds clamped as numpy clamps them."""
    data = _array(x, "relax.run.dynamic_strided_slice")
    b, e, s = (_array(t, "relax.run.dynamic_strided_slice").tolist()
               for t in (begin, end, strides))
    if not len(b) == len(e) == len(s) == data.ndim:
        raise ValueError(f"R.dynamic_strided_slice: begin, end and strides need {data.ndim} "
                         f"values each, got {len(b)}, {len(e)}, {len(s)}")
    if 0 in s:
        raise ValueError("R.dynamic_strided_slice: a stride of 0")
    return as_ndarray(np.ascontiguousarray(data[tuple(slice(*t) for t in zip(b, e, s))]))


register_func("relax.run.nonzero", nonzero, override=True)
register_func("relax.run.unique", unique, override=True)
register_func("relax.run.dynamic_strided_slice", dynamic_strided_slice, override=True)
# TVM's legalization hands a shape of unknown values to this packed function
register_func("relax.run.shape_to_tensor", _shape_to_tensor, override=True)
