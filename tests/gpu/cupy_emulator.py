"""A CPU stand-in for the part of CuPy tvmlite uses, so the CUDA runtime runs without a GPU.

Installed as `sys.modules["cupy"]` (see `installed()`), it lets tvmlite's unmodified CUDA
runtime (vm/cuda.py, vm/ndarray.py, backend/cupy.py) run: kernels are real CUDA C compiled
with g++ and run on the CPU (emulated_kernels.py: how, and how races are revealed), arrays are
host memory that only the emulator hands out.

Arrays. `ndarray` is not a numpy array: it wraps one (C-contiguous when fresh) and refuses
implicit conversion (`np.asarray(x)` raises TypeError, as in CuPy), as do functions given host
arrays, so host/device mix-ups fail here as they would on a GPU. Operators, ufuncs and numpy
functions (module `__getattr__`, `__array_function__`) run numpy on the wrapped data and wrap
the results. DLPack capsules carry device type kDLCUDA (2).

Limits: no real concurrency: a race is seen only if the two orders give different bytes
(not when the stale and the new value agree), and only in memory reached through pointer
arguments; warps are not modelled: no lockstep, no shuffles or votes, and `__syncwarp()` is a
barrier of the caller's 32-lane warp (mask ignored), like a `__syncthreads()` limited to that
warp; atomics are plain read-modify-writes; one device (id 0) and one stream; no dynamic
shared memory (`extern __shared__`); out-of-bounds accesses inside a kernel are not checked
(they can crash the process); host memory stands in for device memory, so a device pointer
used by a CPU kernel goes unnoticed; timings (`cuda.Event`) measure the emulator (running each
kernel twice), not a GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import time
import types
from typing import Any, Iterator

import numpy as np
from emulated_kernels import (  # noqa: F401  (CuPy's names, re-exported)
    MAX_THREADS, CompileException, CUDADriverError, DataRaceError, RawKernel, RawModule,
    compiler, record_allocation,
)
from numpy.lib.mixins import NDArrayOperatorsMixin

_DEVICE_COUNT = 1


class CUDARuntimeError(RuntimeError):
    pass


# -- device memory: arrays the emulator allocated ------------------------------------------------


def _adopt(a: np.ndarray) -> "ndarray":
    """Wrap `a` as device memory: its owner counts as an allocation while it lives."""
    record_allocation(a)
    out = object.__new__(ndarray)
    out._a = a
    return out


class _Pointer:
    """`ndarray.data`: CuPy's MemoryPointer, reduced to what callers read."""

    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr: int) -> None:
        self.ptr, self.device_id = ptr, 0


# -- arrays ---------------------------------------------------------------------------------------


def _unwrap(x: Any) -> Any:
    """Device array -> its numpy data; host arrays are refused, as CuPy refuses them."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, np.generic):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, np.ndarray) or hasattr(x, "__array__") or hasattr(x, "__dlpack__"):
        raise TypeError(f"Unsupported type {type(x)}")
    return x


def _rewrap(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return _adopt(x)
    if isinstance(x, np.generic):  # CuPy reductions give 0-d device arrays, not scalars
        return _adopt(np.asarray(x))
    if isinstance(x, (list, tuple)):
        return type(x)(_rewrap(v) for v in x)
    return x


def _call(fn: Any, args: tuple, kwargs: dict) -> Any:
    """`fn` (a numpy function) on device arrays: unwrap, run, wrap; `out=` gets its arrays."""
    out = kwargs.get("out")
    result = fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
    if out is not None:
        return out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return _rewrap(result)


class ndarray(NDArrayOperatorsMixin):
    """A device array: numpy data the emulator owns, never usable as a host array."""

    __slots__ = ("_a", "__weakref__")
    _a: np.ndarray

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None,
                 order: str = "C") -> None:
        if memptr is not None or strides is not None:
            raise NotImplementedError("cupy emulator: ndarray(memptr=/strides=) is not supported")
        self._a = _adopt(np.empty(shape, dtype, order=order))._a

    # attributes
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: self._a.ndim)
    strides = property(lambda self: self._a.strides)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: _adopt(self._a.T))
    device = property(lambda self: Device(0))

    @property
    def data(self) -> _Pointer:
        # NOTE: CuPy allocates nothing for an empty array: its pointer is 0
        return _Pointer(self._a.__array_interface__["data"][0] if self._a.size else 0)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "descr": [("", a.dtype.str)],
                "data": (self.data.ptr, False), "version": 3,
                "strides": None if a.flags.c_contiguous else a.strides}

    # host <-> device
    def get(self, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> np.ndarray:
        if out is not None:
            np.copyto(out, self._a)
            return out
        return np.array(self._a, order=order, copy=True)

    def set(self, arr: Any, stream: Any = None) -> None:
        if not isinstance(arr, np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.dtype != self._a.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self._a.dtype} array")
        if arr.shape != self._a.shape:
            raise ValueError("Shape mismatch")
        np.copyto(self._a, arr)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    # DLPack: the capsule numpy makes, with its device type set to CUDA
    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        capsule = self._a.__dlpack__(max_version=(1, 0) if versioned else None)
        _dlpack_device_field(capsule).value = 2
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    # operators, ufuncs and numpy functions run on the data and give device arrays
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if any(isinstance(x, np.ndarray) for x in inputs + tuple(kwargs.get("out", ()))):
            return NotImplemented  # numpy operand: TypeError, as in CuPy
        return _call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        return _call(func, args, kwargs)

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None,
               copy: bool = True) -> "ndarray":
        if not copy and np.dtype(dtype) == self._a.dtype:
            return self
        return _adopt(self._a.astype(dtype, order=order))

    def copy(self, order: str = "C") -> "ndarray":
        return _adopt(self._a.copy(order=order))

    def reshape(self, *shape: Any, order: str = "C") -> "ndarray":
        return _adopt(self._a.reshape(*shape, order=order))

    def __getattr__(self, name: str) -> Any:  # .sum(), .max(), .transpose(), .ravel() ...
        if name.startswith("__") or name == "_a":  # never __array_interface__ and the like
            raise AttributeError(name)
        attr = getattr(self._a, name)
        if callable(attr):
            return lambda *args, **kwargs: _call(attr, args, kwargs)
        return _rewrap(attr)

    def __getitem__(self, key: Any) -> "ndarray":
        return _rewrap(self._a[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = value if isinstance(value, np.ndarray) else _unwrap(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Iterator["ndarray"]:
        return (_rewrap(row) for row in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __repr__(self) -> str:
        return repr(self._a)

    def __str__(self) -> str:
        return str(self._a)


# -- module functions that take host data (the rest: __getattr__ below) --------------------------


def asarray(a: Any, dtype: Any = None, order: Any = None, *, blocking: bool = False) -> ndarray:
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    if hasattr(a, "__cuda_array_interface__"):
        raise TypeError(f"cupy emulator: cannot import foreign device array {type(a)}")
    return _adopt(np.array(a, dtype=dtype, order=order or "K", copy=True))  # host -> device


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", subok: bool = False,
          ndmin: int = 0, *, blocking: bool = False) -> ndarray:
    if isinstance(obj, ndarray):
        if not copy and ndmin <= obj.ndim and (dtype is None or np.dtype(dtype) == obj.dtype):
            return obj
        return _adopt(np.array(obj._a, dtype=dtype, order=order, copy=True, ndmin=ndmin))
    return asarray(np.array(obj, dtype=dtype, order=order, copy=True, ndmin=ndmin))


def ascontiguousarray(a: ndarray, dtype: Any = None) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy.ndarray, got "
                        f"{type(a).__name__})")
    if a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a if a.ndim else _adopt(a._a.reshape(1))  # as CuPy (and numpy): 0-d -> 1-d
    return _adopt(np.ascontiguousarray(a._a, dtype=dtype))


def copyto(dst: ndarray, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    if not isinstance(dst, ndarray):
        raise TypeError(f"copyto: the destination must be a cupy.ndarray, got {type(dst)}")
    np.copyto(dst._a, _unwrap(src), casting=casting, where=_unwrap(where))


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> np.ndarray:
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in args) else np


_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype, _PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# Offset of DLTensor.device.device_type in DLManagedTensor / DLManagedTensorVersioned.
_DEVICE_TYPE_OFFSET = {b"dltensor": 8, b"dltensor_versioned": 32 + 8}


def _dlpack_device_field(capsule: Any) -> ctypes.c_int32:
    name = _PyCapsule_GetName(capsule)
    if name not in _DEVICE_TYPE_OFFSET:
        raise ValueError(f"not an unconsumed DLPack capsule (named {name!r})")
    base = _PyCapsule_GetPointer(capsule, name)
    return ctypes.c_int32.from_address(base + _DEVICE_TYPE_OFFSET[name])


class _HostCapsule:
    """A CUDA capsule of ours, relabelled as host memory for numpy to import."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def from_dlpack(x: Any) -> ndarray:
    """A device array sharing the memory of CUDA DLPack tensor `x` (or of a raw capsule)."""
    if hasattr(x, "__dlpack_device__"):
        dev_type, _ = x.__dlpack_device__()
        if dev_type == 1:
            raise TypeError("CPU arrays cannot be directly imported to CuPy. Use "
                            "`cupy.array(numpy.from_dlpack(input))` instead.")
        if dev_type != 2:
            raise ValueError(f"Unsupported DLPack device type {dev_type}")
        try:  # NOTE: numpy imports unversioned (DLPack 0.x) capsules read-only
            capsule = x.__dlpack__(stream=1, max_version=(1, 0))  # 1: the legacy stream
        except TypeError:
            capsule = x.__dlpack__(stream=1)
    else:
        capsule = x
    field = _dlpack_device_field(capsule)
    if field.value != 2:
        raise ValueError(f"DLPack capsule on device type {field.value}, expected CUDA (2)")
    field.value = 1
    return _adopt(np.from_dlpack(_HostCapsule(capsule)))


class _NumpyNamespace:
    """A numpy submodule (np.lib, np.lib.stride_tricks ...) whose functions act on device data."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return _device_version(getattr(self._module, name))


def _device_version(obj: Any) -> Any:
    if isinstance(obj, types.ModuleType):
        return _NumpyNamespace(obj)
    if callable(obj) and not isinstance(obj, type):  # functions and ufuncs, not dtypes
        return lambda *args, **kwargs: _call(obj, args, kwargs)
    return obj


def __getattr__(name: str) -> Any:
    """Everything else CuPy mirrors from numpy (maximum, transpose, float32, ...)."""
    return _device_version(getattr(np, name))


# -- cupy.cuda: devices, streams, events ----------------------------------------------------------

_current_device = [0]


class Device:
    def __init__(self, device: Any = None) -> None:
        self.id = _current_device[-1] if device is None else int(device)
        if not 0 <= self.id < _DEVICE_COUNT:
            raise CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal")

    compute_capability = "80"

    def __enter__(self) -> "Device":
        _current_device.append(self.id)
        return self

    def __exit__(self, *exc: Any) -> None:
        _current_device.pop()

    def use(self) -> None:
        _current_device[-1] = self.id

    def synchronize(self) -> None:
        pass

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


class Stream:
    """Kernels run to completion when launched: every stream is always synchronized."""

    ptr = 0

    def synchronize(self) -> None:
        pass

    def use(self) -> "Stream":
        return self

    __enter__ = use

    def __exit__(self, *exc: Any) -> None:
        pass


_STREAM = Stream()


class Event:
    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:
        self.time: float | None = None

    def record(self, stream: Any = None) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        pass

    @property
    def done(self) -> bool:
        return True


def get_elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events."""
    if start.time is None or end.time is None:
        raise CUDARuntimeError("cudaErrorInvalidResourceHandle: the event was not recorded")
    return (end.time - start.time) * 1e3


def _get_device_properties(device: int) -> dict[str, Any]:
    Device(device)  # validates the ordinal
    return {"name": b"CuPy emulator (CPU)", "major": 8, "minor": 0, "warpSize": 32,
            "maxThreadsPerBlock": MAX_THREADS, "sharedMemPerBlock": 48 * 1024,
            "multiProcessorCount": 1, "totalGlobalMem": 1 << 34}


def _set_device(device: int) -> None:
    Device(device).use()


runtime = types.SimpleNamespace(
    getDeviceCount=lambda: _DEVICE_COUNT, getDevice=lambda: _current_device[-1],
    setDevice=_set_device, getDeviceProperties=_get_device_properties,
    deviceSynchronize=lambda: None, CUDARuntimeError=CUDARuntimeError)
cuda = types.SimpleNamespace(
    runtime=runtime, Device=Device, Stream=Stream, Event=Event,
    get_current_stream=lambda device_id=None: _STREAM, get_elapsed_time=get_elapsed_time,
    driver=types.SimpleNamespace(CUDADriverError=CUDADriverError),
    compiler=types.SimpleNamespace(CompileException=CompileException))


# -- installing -----------------------------------------------------------------------------------

_SMOKE = """
extern "C" __global__ void __launch_bounds__(64) smoke(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
"""


def unavailable() -> str | None:
    """Why the emulator cannot run here (no g++, or a toolchain that fails), or None."""
    if compiler() is None:
        return "no C++ compiler (g++) to compile kernels with"
    try:
        out = asarray(np.zeros(64, np.int32))
        RawModule(code=_SMOKE).get_function("smoke")((1,), (64,), (out,))
        assert (out.get() == np.arange(63, -1, -1)).all()
    except Exception as err:  # noqa: BLE001  (any failure means: do not use the emulator)
        return f"the CuPy emulator does not work here: {err}"
    return None


@contextlib.contextmanager
def installed() -> Iterator[types.ModuleType]:
    """`import cupy` gives this emulator inside the block; the previous state after it.

    tvmlite caches RawModules by source hash (vm/cuda.py `_MODULES`): those belong to whichever
    CuPy made them, so the cache is emptied on the way in and out.
    """
    from tvmlite.vm import cuda as tvm_cuda

    saved = sys.modules.get("cupy")
    saved_modules = dict(tvm_cuda._MODULES)
    sys.modules["cupy"] = sys.modules[__name__]
    tvm_cuda._MODULES.clear()
    try:
        yield sys.modules[__name__]
    finally:
        tvm_cuda._MODULES.clear()
        tvm_cuda._MODULES.update(saved_modules)
        if saved is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved
