"""The VM builtins of explicit memory (ir/ops/memory.py): storages, tensors placed in them,
views, and the kills that TVM's memory planning inserts.

A storage is a block of bytes (an aligned numpy uint8 array); a tensor allocated in it is a
numpy view of its bytes, so kernels write into the storage itself, as in TVM.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .device import Device
from .errors import ArgumentShapeError, ArgumentTypeError
from .ndarray import NDArray, aligned_empty, as_ndarray


class Storage:
    """Bytes that tensors are placed in (`R.memory.alloc_storage`'s value)."""

    __slots__ = ("data", "device", "scope")

    def __init__(self, nbytes: int, device: Device, scope: str) -> None:
        if nbytes < 0:
            raise ArgumentShapeError(f"alloc_storage: negative size {nbytes}")
        self.data = aligned_empty((nbytes,), np.uint8)
        self.device = device
        self.scope = scope

    @property
    def nbytes(self) -> int:
        return int(self.data.shape[0])

    def __repr__(self) -> str:
        return f"Storage({self.nbytes} bytes, {self.scope!r})"


def _dims(shape: Any, what: str) -> tuple[int, ...]:
    if not isinstance(shape, (tuple, list)):
        raise ArgumentTypeError(f"{what}: expected a shape, got {type(shape).__name__}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ArgumentShapeError(f"{what}: negative dimension in shape {dims}")
    return dims


def _bytes_view(data: np.ndarray, offset: int, shape: tuple[int, ...], dtype: str,
                what: str) -> np.ndarray:
    dt = np.dtype(dtype)
    need = math.prod(shape) * dt.itemsize
    if offset < 0 or offset + need > data.nbytes:
        raise ArgumentShapeError(f"{what}: {need} bytes at offset {offset} do not fit in "
                                 f"{data.nbytes} bytes")
    if offset % dt.itemsize:
        raise ArgumentShapeError(f"{what}: offset {offset} is not a multiple of {dtype}'s "
                                 f"{dt.itemsize} bytes")
    return data[offset:offset + need].view(dt).reshape(shape)


def storage_allocator(device: Device) -> tuple[Any, Any]:
    """`memory.alloc_storage(size, device_index, scope, dtype)` and
    `vm.alloc_storage(size, device_index, dtype, scope)`, bound to `device`."""
    if device.device_type != 1:
        def refuse(*_: Any) -> Storage:
            raise NotImplementedError("explicit storages (R.memory.alloc_storage) run on the "
                                      "CPU VM only: tvmlite's GPU VM allocates each tensor")
        return refuse, refuse

    def memory_alloc(size: Any, _device_index: int, scope: str, _dtype: str) -> Storage:
        return Storage(math.prod(_dims(size, "R.memory.alloc_storage size")), device, scope)

    def vm_alloc(size: Any, _device_index: int, _dtype: str, scope: str = "global"
                 ) -> Storage:
        return Storage(math.prod(_dims(size, "R.vm.alloc_storage size")), device, scope)

    return memory_alloc, vm_alloc


def alloc_tensor_in_storage(storage: Any, offset: int, shape: Any, dtype: str,
                            _device_index: int = 0) -> NDArray:
    """A tensor of `shape` and `dtype` over `storage`'s bytes from `offset`."""
    if not isinstance(storage, Storage):
        raise ArgumentTypeError(f"R.memory.alloc_tensor: expected a storage, got "
                                f"{type(storage).__name__}")
    dims = _dims(shape, "R.memory.alloc_tensor shape")
    arr = _bytes_view(storage.data, int(offset), dims, dtype, "R.memory.alloc_tensor")
    return NDArray(arr, storage.device)


def tensor_allocator(alloc: Any) -> Any:
    """`builtin.alloc_tensor(shape, dtype, device_index, scope)` on the VM's allocator."""
    def alloc_tensor_of_shape(shape: Any, dtype: str, _device_index: int = 0,
                              _scope: str = "global") -> NDArray:
        return alloc(dtype, *_dims(shape, "R.builtin.alloc_tensor shape"))
    return alloc_tensor_of_shape


def kill_object(_obj: Any) -> tuple[()]:
    """`R.memory.kill_storage / kill_tensor`: the register is dropped by the VM; Python frees
    the bytes once no tensor uses them."""
    return ()


def memory_view(t: Any, shape: Any = (), dtype: Any = (), byte_offset: Any = ()) -> NDArray:
    """`R.memory.view`: `t`'s bytes with another shape, dtype or start (no copy); `()` or
    None leaves that part as it is."""
    x = as_ndarray(t) if isinstance(t, np.ndarray) else t
    if not isinstance(x, NDArray):
        raise ArgumentTypeError(f"R.memory.view: expected a tensor, got {type(t).__name__}")
    arr = x._arr  # NOTE: the wrapped array itself, so the view aliases it (numpy() copies)
    new_dtype = arr.dtype.name if dtype in ((), None) else str(dtype)
    dims = arr.shape if shape in ((), None) else _dims(shape, "R.memory.view shape")
    offset = 0 if byte_offset in ((), None) else int(byte_offset)
    flat = arr.reshape(-1).view(np.uint8)
    return NDArray(_bytes_view(flat, offset, dims, new_dtype, "R.memory.view"), x.device)


def ensure_zero_offset(t: Any) -> NDArray:
    """`R.memory.ensure_zero_offset`: tvmlite's tensors carry no byte offset (a view is its
    own array), so the tensor itself."""
    if not isinstance(t, (NDArray, np.ndarray)):
        raise ArgumentTypeError(f"R.memory.ensure_zero_offset: expected a tensor, got "
                                f"{type(t).__name__}")
    return as_ndarray(t)


def make_storage_builtins(device: Device, alloc: Any) -> dict[str, Any]:
    """The builtins of this module, bound to the VM's device and tensor allocator."""
    memory_alloc, vm_alloc = storage_allocator(device)
    return {
        "vm.builtin.memory_alloc_storage": memory_alloc,
        "vm.builtin.vm_alloc_storage": vm_alloc,
        "vm.builtin.alloc_tensor_in_storage": alloc_tensor_in_storage,
        "vm.builtin.alloc_tensor_of_shape": tensor_allocator(alloc),
        "vm.builtin.kill_object": kill_object,
        "vm.builtin.memory_view": memory_view,
        "runtime.TVMTensorCreateView": memory_view,  # what LowerRuntimeBuiltin calls
        "vm.builtin.ensure_zero_offset": ensure_zero_offset,
    }


STORAGE_BUILTIN_NAMES = frozenset({
    "vm.builtin.memory_alloc_storage", "vm.builtin.vm_alloc_storage",
    "vm.builtin.alloc_tensor_in_storage", "vm.builtin.alloc_tensor_of_shape",
    "vm.builtin.kill_object", "vm.builtin.memory_view", "vm.builtin.ensure_zero_offset",
    "runtime.TVMTensorCreateView",
})
