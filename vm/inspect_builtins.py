"""The builtins of `relax.inspect.*` (ir/ops/inspect_ops.py): DLPack fields of a tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from .datatype import DataType
from .ndarray_view import byte_offset
from .registry import register_func


def _array(t: Any) -> np.ndarray:
    """The memory itself (no copy): its strides are the tensor's."""
    arr = getattr(t, "_arr", None)
    return arr if isinstance(arr, np.ndarray) else np.asarray(t)


def _dtype(t: Any) -> DataType:
    """TVM's dtype of the elements (an NDArray may hold ones numpy cannot name)."""
    return DataType(t.dtype if isinstance(t.dtype, str) else np.dtype(t.dtype).name)


def _axis(t: Any, axis: Any) -> int:
    ndim = len(t.shape)
    i = int(axis)
    if not 0 <= i < ndim:
        raise IndexError(f"relax.inspect: axis {i} is out of range for a rank-{ndim} tensor")
    return i


def _strides(t: Any) -> tuple[int, ...]:
    a = _array(t)
    return tuple(s // a.itemsize for s in a.strides)


_BUILTINS = {
    "tensor_dtype_code": lambda t: int(_dtype(t).type_code),
    "tensor_dtype_bits": lambda t: _dtype(t).bits,
    "tensor_dtype_lanes": lambda t: _dtype(t).lanes,
    "tensor_ndim": lambda t: len(t.shape),
    "tensor_shape_i": lambda t, axis: int(t.shape[_axis(t, axis)]),
    "tensor_stride_i": lambda t, axis: _strides(t)[_axis(t, axis)],
    # a view's offset into the tensor it was cut from (NDArray._create_view)
    "tensor_byte_offset": lambda t: byte_offset(t),
    "tensor_elem_offset": lambda t: byte_offset(t) // _dtype(t).itemsize,
}
for _name, _fn in _BUILTINS.items():
    register_func(f"vm.builtin.inspect.{_name}", _fn, override=True)
