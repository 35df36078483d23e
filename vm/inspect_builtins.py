"""The builtins of `relax.inspect.*` (ir/ops/inspect_ops.py): DLPack fields of a tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from .registry import register_func

_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 1}  # DLPack type codes (bool reads as uint)


def _array(t: Any) -> np.ndarray:
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


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
    "tensor_dtype_code": lambda t: _CODES[np.dtype(_array(t).dtype).kind],
    "tensor_dtype_bits": lambda t: np.dtype(_array(t).dtype).itemsize * 8,
    "tensor_dtype_lanes": lambda t: 1,
    "tensor_ndim": lambda t: len(t.shape),
    "tensor_shape_i": lambda t, axis: int(t.shape[_axis(t, axis)]),
    "tensor_stride_i": lambda t, axis: _strides(t)[_axis(t, axis)],
    "tensor_byte_offset": lambda t: 0,  # tvmlite's NDArrays start at their data pointer
    "tensor_elem_offset": lambda t: 0,
}
for _name, _fn in _BUILTINS.items():
    register_func(f"vm.builtin.inspect.{_name}", _fn, override=True)
