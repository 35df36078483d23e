"""Tensors of dtypes numpy cannot name, and views into another tensor's bytes.

A dtype numpy lacks ("float32x4", "bfloat", "float8_e4m3fn") is stored as ml_dtypes' type where
that package has it, else as raw bytes of the element's size; the NDArray still answers the
TVM name. `NDArray._create_view` (TVM's) reinterprets part of a tensor's memory with another
shape and dtype; the view remembers its byte offset into the first tensor (DLPack's
`byte_offset`), which `relax.inspect.tensor_byte_offset` reads.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .datatype import DataType
from .registry import register_func

if TYPE_CHECKING:
    from .ndarray import NDArray

# view -> its byte offset from the data pointer of the tensor it was first cut from (weak, so
# that only views pay for it: a tensor missing here has offset 0)
_BYTE_OFFSETS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def storage_dtype(dtype: Any) -> np.dtype:
    """numpy's dtype holding one element of TVM's `dtype`."""
    try:
        return np.dtype(dtype)
    except TypeError:
        pass
    name = str(dtype)
    try:
        import ml_dtypes

        found = getattr(ml_dtypes, name, None)
        if found is not None:
            return np.dtype(found)
    except ImportError:  # optional: without it, such tensors hold raw bytes
        pass
    return np.dtype((np.void, DataType(name).itemsize))


def byte_offset(t: "NDArray") -> int:
    return _BYTE_OFFSETS.get(t, 0)


def create_view(base: "NDArray", shape: Sequence[int], dtype: str | None = None,
                relative_byte_offset: int = 0) -> "NDArray":
    """A tensor sharing `base`'s bytes from `relative_byte_offset` on, as TVM's
    `Tensor._create_view`; it may not reach past the end of `base`."""
    from .ndarray import NDArray

    dtype = base.dtype if dtype is None else str(dtype)
    shape = tuple(int(s) for s in shape)
    elem = storage_dtype(dtype)
    nbytes = math.prod(shape) * elem.itemsize
    raw = np.ascontiguousarray(base._arr).reshape(-1).view(np.uint8)
    if relative_byte_offset < 0 or relative_byte_offset + nbytes > raw.size:
        raise ValueError(f"_create_view: a view of {nbytes} bytes at byte offset "
                         f"{relative_byte_offset} does not fit in a tensor of {raw.size} bytes")
    arr = raw[relative_byte_offset:relative_byte_offset + nbytes].view(elem).reshape(shape)
    view = NDArray(arr, base.device, dtype=dtype)
    offset = byte_offset(base) + relative_byte_offset
    if offset:
        _BYTE_OFFSETS[view] = offset
    return view


@register_func("runtime.TVMTensorIsStorageShared", override=True)
def storage_shared(a: NDArray, b: NDArray) -> bool:
    """Whether two tensors share memory (TVM's `runtime.TVMTensorIsStorageShared`)."""
    return bool(np.shares_memory(a._arr, b._arr)) if a.device == b.device else False
