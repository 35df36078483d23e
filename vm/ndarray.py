"""NDArray: a tensor on a device, wrapping a C-contiguous numpy array (cpu) or CuPy array (cuda).

The VM's hot path reads three cached slots and nothing else: `_ptr` (the data address as an
int, what kernels take), `_sig` (a `(shape, dtype, device)` tuple compared against the expected
signature in one `==`), and `_arr` (the numpy array that owns the memory).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any, Sequence

import numpy as np

from .device import Device, cpu, device, intern, kDLCPU

Sig = tuple[tuple[int, ...], str, Device]


def _probe_data_offset() -> int | None:
    """Offset of `data` inside numpy's array object (PyArrayObject_fields), found by looking.

    NOTE: `arr.ctypes.data` and `__array_interface__` cost ~1.7 us each; reading the field
    directly costs ~0.1 us. The layout is public numpy ABI, but we verify rather than assume.
    """
    probe = np.empty(3, np.float64)
    want = probe.ctypes.data
    for off in range(8, 64, 8):
        if ctypes.c_void_p.from_address(id(probe) + off).value == want:
            other = np.empty(5, np.int8)
            if ctypes.c_void_p.from_address(id(other) + off).value == other.ctypes.data:
                return off
    return None


DATA_OFFSET = _probe_data_offset()
_from_address = ctypes.c_void_p.from_address


def data_ptr(arr: np.ndarray) -> int:
    """The address of `arr`'s first element (0 for an empty array without storage)."""
    if DATA_OFFSET is None:
        return arr.ctypes.data
    return _from_address(id(arr) + DATA_OFFSET).value or 0


ALIGN = 64  # bytes: a cache line and an AVX-512 vector (TVM aligns its tensors alike)
ALIGN_FROM_BYTES = 4096  # below, numpy's own allocation: the slicing costs more than it saves


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts on an ALIGN-byte boundary.

    numpy's allocations start 16 bytes past one (malloc's header): every vector load of a
    kernel then straddles two cache lines, which cost a scheduled 1024^2 matmul 20% (72 vs
    90 GFLOP/s) here."""
    dt = np.dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    buf = np.empty(nbytes + ALIGN, np.uint8)
    start = -data_ptr(buf) % ALIGN
    return buf[start:start + nbytes].view(dt).reshape(shape)


def empty_array(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """`np.empty`, aligned when the array is big enough for it to matter."""
    dt = np.dtype(dtype)
    if math.prod(shape) * dt.itemsize < ALIGN_FROM_BYTES:
        return np.empty(shape, dt)
    return aligned_empty(shape, dt)


_NAMES: dict[np.dtype, str] = {}


def _dtype_name(dt: np.dtype) -> str:
    """TVM's spelling of a dtype ('float32', 'bool'); cached, numpy's `.name` is slow Python."""
    name = _NAMES.get(dt)
    if name is None:
        name = _NAMES[dt] = dt.name
    return name


_SIGS: dict[Sig, Sig] = {}


def intern_sig(sig: Sig) -> Sig:
    """One tuple object per distinct signature, so the hot path can try `is` before `==`."""
    if len(_SIGS) > 4096:  # a process making tensors of endless shapes: stop interning
        return sig
    return _SIGS.setdefault(sig, sig)


class NDArray:
    """A tensor: `.shape` (tuple), `.dtype` (str), `.device`, `.numpy()`, DLPack export."""

    __slots__ = ("_arr", "_ptr", "_sig", "__weakref__")

    def __init__(self, arr: np.ndarray, device: Device | None = None, dtype: str | None = None
                 ) -> None:
        """`dtype`: TVM's name of the elements, where numpy's differs ("float32x4" held as
        raw bytes, vm/ndarray_view.py)."""
        dev = intern(device) if device is not None else cpu()
        if dev.device_type != kDLCPU:  # GPU tensors wrap CuPy arrays (issue 7, vm/cuda.py)
            from .cuda import init_device_array

            init_device_array(self, arr, dev)
            return
        # kernels expect dense row-major memory (NOTE: ascontiguousarray would make 0-d 1-d)
        arr = np.asarray(arr, order="C")
        if not arr.dtype.isnative:  # ... in the machine's byte order
            arr = arr.astype(arr.dtype.newbyteorder("="))
        self._arr = arr
        self._ptr = data_ptr(arr)
        self._sig = intern_sig((arr.shape, dtype or _dtype_name(arr.dtype), dev))

    @staticmethod
    def _wrap(arr: np.ndarray, sig: Sig, ptr: int) -> "NDArray":
        """Hot-path constructor: no checks, everything precomputed by the caller."""
        out = object.__new__(NDArray)
        out._arr = arr
        out._ptr = ptr
        out._sig = sig
        return out

    @property
    def shape(self) -> tuple[int, ...]:
        return self._sig[0]

    @property
    def dtype(self) -> str:
        return self._sig[1]

    @property
    def device(self) -> Device:
        return self._sig[2]

    @property
    def ndim(self) -> int:
        return len(self._sig[0])

    def numpy(self) -> np.ndarray:
        """A copy of the data as a numpy array (as in TVM)."""
        if self._sig[2].device_type != kDLCPU:
            return self._arr.get()  # a CuPy array: copy device -> host
        return self._arr.copy()

    asnumpy = numpy

    @property
    def byte_offset(self) -> int:
        """Bytes from the start of the tensor this one is a view of (0 for a whole tensor)."""
        from .ndarray_view import byte_offset

        return byte_offset(self)

    def _create_view(self, shape: Sequence[int], dtype: str | None = None,
                     relative_byte_offset: int = 0) -> "NDArray":
        """A tensor sharing these bytes from `relative_byte_offset` on (TVM's)."""
        from .ndarray_view import create_view

        return create_view(self, shape, dtype, relative_byte_offset)

    def __setitem__(self, index: Any, value: Any) -> None:
        """`arr[:] = value`: copy a whole array in (TVM supports only the full slice)."""
        if not (isinstance(index, slice) and index == slice(None)):
            raise ValueError("NDArray supports only `arr[:] = value` (a copy of the whole "
                             "array), as TVM does")
        self.copyfrom(value)

    def copyfrom(self, source: "NDArray | np.ndarray | Sequence[Any]") -> "NDArray":
        src = source._arr if isinstance(source, NDArray) else source
        if not hasattr(src, "__cuda_array_interface__"):
            src = np.asarray(src)
        if tuple(src.shape) != self.shape:
            raise ValueError(f"copyfrom: shape {tuple(src.shape)} does not match {self.shape}")
        if self._sig[2].device_type != kDLCPU:
            from .cuda import copy_into

            copy_into(self._arr, src)  # host -> device or device -> device
        elif isinstance(src, np.ndarray):
            np.copyto(self._arr, src.astype(self._arr.dtype, copy=False))
        else:
            np.copyto(self._arr, src.get().astype(self._arr.dtype, copy=False))
        return self

    def copyto(self, target: "NDArray | Device") -> "NDArray":
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        if isinstance(target, Device):
            if target.device_type == kDLCPU:
                return NDArray(self.numpy(), target)  # numpy() copies
            on_cpu = self._sig[2].device_type == kDLCPU  # an upload copies; a GPU copy must
            return NDArray(self._arr if on_cpu else self._arr.copy(), target)
        raise TypeError(f"copyto: expected an NDArray or a Device, got {type(target).__name__}")

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._sig[2]._dlpack()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self._arr if self._sig[2].device_type == kDLCPU else self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self) -> str:
        body = np.array2string(self.__array__(), separator=", ", threshold=20)
        return f"<tvm.nd.NDArray shape={self.shape}, {self.device}>\n{body}"

    def __str__(self) -> str:
        return str(self.__array__())


def array(data: Any, device: Device | None = None, dtype: Any = None) -> NDArray:
    """`tvm.nd.array(np_array, device=tvm.cpu())`: a new tensor holding a copy of the data."""
    if isinstance(data, NDArray):
        data = data._arr if data._sig[2].device_type == kDLCPU else data.numpy()
    if hasattr(data, "__cuda_array_interface__"):  # a CuPy (or torch.cuda) array
        from .cuda import cupy_module

        arr = cupy_module().array(data, dtype=dtype, order="C", copy=True)
        return NDArray(arr, device or device_of(arr))
    src = np.asarray(data, dtype=dtype)
    arr = empty_array(src.shape, src.dtype)
    np.copyto(arr, src)
    return NDArray(arr, device)


def device_of(arr: Any) -> Device:
    """tvm.cuda(i) for a CuPy array on GPU i."""
    from .device import cuda

    return cuda(int(arr.device.id))


def empty(shape: Sequence[int] | int, dtype: Any = "float32", device: Device | None = None
          ) -> NDArray:
    """`tvm.nd.empty(shape, dtype, device)`: an uninitialized tensor."""
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    try:
        return NDArray(empty_array(shape, dtype), device)
    except TypeError:  # a dtype numpy cannot name ("float32x4", "float8_e4m3fn")
        from .ndarray_view import storage_dtype

        return NDArray(empty_array(shape, storage_dtype(dtype)), device, dtype=str(dtype))


def from_dlpack(obj: Any) -> NDArray:
    """Wrap another framework's tensor without copying (cpu or cuda, contiguous)."""
    dev_type, dev_id = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (1, 0)
    if dev_type != kDLCPU:
        from .cuda import from_dlpack as cupy_from_dlpack

        garr = cupy_from_dlpack(obj)
        if not garr.flags.c_contiguous:
            raise ValueError("from_dlpack: only C-contiguous tensors can be shared without a copy")
        return NDArray(garr, device(dev_type, dev_id))
    arr = np.from_dlpack(obj)
    if not arr.flags.c_contiguous:
        raise ValueError("from_dlpack: only C-contiguous tensors can be shared without a copy")
    return NDArray(arr)


def as_ndarray(x: Any, device: Device | None = None) -> NDArray:
    """An NDArray for `x`: NDArrays pass through; numpy arrays are wrapped (no copy if dense)."""
    if type(x) is NDArray:
        return x
    if isinstance(x, np.ndarray):
        return NDArray(x, device)
    raise TypeError(f"expected a tvm.nd.NDArray or numpy.ndarray, got {type(x).__name__}")
