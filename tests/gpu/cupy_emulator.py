"""A CPU stand-in for the part of CuPy tvmlite uses, so the CUDA runtime runs without a GPU.

Installed as `sys.modules["cupy"]` (see `installed()`), it lets tvmlite's unmodified CUDA
runtime (vm/cuda.py, vm/ndarray.py, backend/cupy.py) run: kernels are real CUDA C compiled
with g++, arrays are host memory that only the emulator hands out.

Kernels. `RawModule(code=...)` compiles the source with g++ (`-O1 -std=c++20`), with
emulator/cuda_shim.h force-included (CUDA keywords, `threadIdx`/`blockIdx`/... as globals,
barriers, the runtime below) and emulator/include/ holding stand-ins for cuda_fp16.h (half is
`_Float16`) and cuda_bf16.h. Every `__global__` function gets an `extern "C"` launcher whose
template unpacks the argument pointers by the kernel's own parameter types, so the emulator
never parses C types; it checks each argument's size against them and each pointer against the
live device allocations (a host pointer is refused before the kernel can crash the process).
One module is compiled once per process and source.

Execution model: deterministic and race-revealing. Blocks run one after another on the
calling OS thread. If the source has no barrier, a block's threads are plain calls in thread
order. Otherwise each thread is a fiber with its own 64 KiB stack, and fibers switch only at
`__syncthreads()`: thread 0 runs to its barrier, then thread 1, ..., then all continue to the
next barrier. A missing barrier therefore fails every time: a thread reads shared memory that
later threads have not written yet, or overwrites what they have not read yet. Shared memory
is poisoned (0xFF bytes: NaN as float, -1 as int) before each block, as it starts undefined on
a GPU. To catch the races this order hides (reading a lower thread's value, two threads
writing one address, blocks exchanging data), every launch runs twice from the same memory:
threads and blocks in ascending order, then descending; if the allocations the kernel's
pointers reach differ, `DataRaceError` says so (`CHECK_RACES = False` runs once; sources that
mention atomics run once, as their rounding depends on the order). Threads that exit while
others wait at a barrier raise (barrier divergence) instead of hanging. Launches are checked
as the driver checks them: empty grids and blocks, more than 1024 threads, more threads than
`__launch_bounds__` raise `cupy.cuda.driver.CUDADriverError`.

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

import atexit
import contextlib
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import weakref
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

HERE = Path(__file__).resolve().parent / "emulator"
SHIM = HERE / "cuda_shim.h"
FLAGS = ("-O1", "-std=c++20", "-shared", "-fPIC", "-U_FORTIFY_SOURCE")  # fortify: longjmp checks
MAX_THREADS = 1024
CHECK_RACES = True  # run every launch forwards and backwards, and compare (see RawKernel)
_DEVICE_COUNT = 1


# -- errors (CuPy's names and places) ------------------------------------------------------------


class CUDADriverError(RuntimeError):
    pass


class CUDARuntimeError(RuntimeError):
    pass


class CompileException(Exception):
    pass


class DataRaceError(RuntimeError):
    """The emulator's own: a kernel's result depends on the order its threads run in."""


# -- device memory: arrays the emulator allocated ------------------------------------------------

_ALLOCS: dict[int, tuple[int, int]] = {}  # id(owning numpy array) -> [start, end)


def _adopt(a: np.ndarray) -> "ndarray":
    """Wrap `a` as device memory: its owner is recorded as an allocation while it lives."""
    owner = a
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    key = id(owner)
    if key not in _ALLOCS:
        start = owner.__array_interface__["data"][0]
        _ALLOCS[key] = (start, start + max(owner.nbytes, 1))
        weakref.finalize(owner, _ALLOCS.pop, key, None)
    out = object.__new__(ndarray)
    out._a = a
    return out


def _alloc_ranges() -> list[tuple[int, int]]:
    while True:
        try:  # NOTE: a finalizer run by the garbage collector may shrink _ALLOCS meanwhile
            return list(_ALLOCS.values())
        except RuntimeError:
            continue


def _is_device_pointer(p: int) -> bool:
    return p == 0 or any(lo <= p <= hi for lo, hi in _alloc_ranges())


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


# -- kernels --------------------------------------------------------------------------------------

_KERNEL_RE = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\s*\(\s*(\d*)[^)]*\)\s*)?"
                        r"(\w+)\s*\(")
_WRAPPER = """
extern "C" int tle_launch_{0}(const unsigned* g, const unsigned* b, void** a, int fibers,
                             int reverse) {{
  return tle::launch([](void** args) {{ tle::call({0}, args); }}, g, b, a, fibers, reverse);
}}
extern "C" int tle_params_{0}(int* sizes, int cap) {{ return tle::describe({0}, sizes, cap); }}
"""
_LOCK = threading.Lock()  # one compile or kernel at a time: the runtime's state is global
_LIBS: dict[str, ctypes.CDLL] = {}
_BUILD_DIR: list[Path] = []


def _compiler() -> str | None:
    return shutil.which(os.environ.get("CXX", "g++"))


def _build_dir() -> Path:
    if not _BUILD_DIR:
        path = Path(tempfile.mkdtemp(prefix="cupy-emulator-"))
        atexit.register(shutil.rmtree, path, True)
        _BUILD_DIR.append(path)
    return _BUILD_DIR[0]


def _load(source: str) -> ctypes.CDLL:
    """The compiled library of `source` (with launchers appended), built once per process."""
    key = hashlib.sha256((source + SHIM.read_text()).encode()).hexdigest()[:24]
    lib = _LIBS.get(key)
    if lib is None:
        cxx = _compiler()
        if cxx is None:
            raise CompileException("cupy emulator: no C++ compiler (g++) found")
        src, out = _build_dir() / f"{key}.cpp", _build_dir() / f"{key}.so"
        src.write_text(source)
        cmd = [cxx, *FLAGS, "-include", str(SHIM), "-I", str(HERE / "include"), "-x", "c++",
               str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise CompileException(f"g++ failed on the kernel source:\n{proc.stderr}")
        lib = _LIBS[key] = ctypes.CDLL(str(out))
        lib.tle_error.restype = ctypes.c_char_p
    return lib


class RawModule:
    """CUDA source compiled (here by g++) on first use; `get_function` gives its kernels."""

    def __init__(self, code: str | None = None, *, path: str | None = None,
                 options: tuple = (), backend: str = "nvrtc", **_: Any) -> None:
        if code is None:
            raise NotImplementedError("cupy emulator: RawModule needs code= (no cubin/ptx files)")
        self.code, self.options = code, tuple(options)
        self._kernels = {name: int(bound) if bound else None
                         for bound, name in _KERNEL_RE.findall(code)}
        self._fibers = "__syncthreads" in code or "__syncwarp" in code
        self._atomics = "atomic" in code
        self._lib: ctypes.CDLL | None = None

    def get_function(self, name: str) -> "RawKernel":
        if self._lib is None:
            with _LOCK:
                self._lib = _load(self.code + "".join(_WRAPPER.format(k) for k in self._kernels))
        if name not in self._kernels:
            raise CUDADriverError("CUDA_ERROR_NOT_FOUND: named symbol not found")
        return RawKernel(self._lib, name, self._kernels[name], self._fibers, self._atomics)


def _dims(d: Any, what: str) -> tuple[int, int, int]:
    d = (d,) if isinstance(d, (int, np.integer)) else tuple(d)
    if not 1 <= len(d) <= 3:
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, got {d}")
    return tuple(int(x) for x in d) + (1,) * (3 - len(d))  # type: ignore[return-value]


def _arg_bytes(arg: Any) -> bytes:
    """The bytes CuPy would pass for one kernel argument."""
    if isinstance(arg, ndarray):
        return np.uint64(arg.data.ptr).tobytes()
    if isinstance(arg, np.generic):
        return arg.tobytes()
    if isinstance(arg, (bool, int, float, complex)):  # CuPy's mapping of Python scalars
        kind = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
        return kind[type(arg)](arg).tobytes()
    raise TypeError(f"Unsupported type {type(arg)}")


class RawKernel:
    """One `__global__` function: `kernel(grid, block, args)` runs the grid to completion."""

    def __init__(self, lib: ctypes.CDLL, name: str, bound: int | None, fibers: bool,
                 atomics: bool) -> None:
        self.name, self.bound, self.fibers, self.atomics = name, bound, fibers, atomics
        self._launch = getattr(lib, f"tle_launch_{name}")
        self._error = lib.tle_error
        sizes = (ctypes.c_int * 256)()
        count = getattr(lib, f"tle_params_{name}")(sizes, 256)
        self.params = list(sizes[:count])  # bytes per parameter; negative for a pointer

    def __call__(self, grid: Any, block: Any, args: tuple, *, shared_mem: int = 0,
                 stream: Any = None, enable_cooperative_groups: bool = False) -> None:
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        self._check_launch(grid, block, shared_mem)
        values = [self._check_arg(i, a) for i, a in enumerate(args)]
        if len(values) != len(self.params):
            raise TypeError(f"kernel {self.name} takes {len(self.params)} arguments, "
                            f"got {len(values)}")
        buffers = [ctypes.create_string_buffer(v, len(v)) for v in values]
        argv = (ctypes.c_void_p * max(1, len(buffers)))(
            *[ctypes.cast(b, ctypes.c_void_p) for b in buffers])
        dims = (ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block)
        with _LOCK:
            if not CHECK_RACES or self.atomics:  # atomics legitimately depend on the order
                self._run(dims, argv, reverse=False)
                return
            # Run forwards, then from the same memory backwards: a race-free kernel gives the
            # same bytes whatever order its threads (and blocks) run in between barriers.
            reach = self._reachable(values)
            before = [ctypes.string_at(lo, hi - lo) for _, lo, hi in reach]
            self._run(dims, argv, reverse=False)
            forwards = [ctypes.string_at(lo, hi - lo) for _, lo, hi in reach]
            for (_, lo, hi), saved in zip(reach, before):
                ctypes.memmove(lo, saved, hi - lo)
            self._run(dims, argv, reverse=True)
            for (i, lo, hi), want in zip(reach, forwards):
                got = ctypes.string_at(lo, hi - lo)
                if got != want:
                    diff = np.frombuffer(got, np.uint8) != np.frombuffer(want, np.uint8)
                    at = int(np.flatnonzero(diff)[0])
                    raise DataRaceError(
                        f"kernel {self.name}: the memory of argument {i} (byte {at}) differs "
                        f"when threads and blocks run in reverse order between barriers: a data "
                        f"race (a missing __syncthreads(), threads exchanging data without one, "
                        f"or two threads writing one address)")

    def _run(self, dims: tuple, argv: Any, reverse: bool) -> None:
        if self._launch(*dims, argv, int(self.fibers), int(reverse)):
            raise CUDADriverError("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure "
                                  f"(emulator: {self._error().decode()})")

    def _reachable(self, values: list[bytes]) -> list[tuple[int, int, int]]:
        """(argument, start, end) of the allocations the pointer arguments point into."""
        ranges = _alloc_ranges()
        reach: dict[tuple[int, int], int] = {}
        for i, (size, value) in enumerate(zip(self.params, values)):
            p = int.from_bytes(value, "little")
            inside = [(lo, hi) for lo, hi in ranges if size < 0 and p and lo <= p <= hi]
            if inside:  # the largest: a view's kernel may reach all of its base
                reach.setdefault(max(inside, key=lambda r: r[1] - r[0]), i)
        return [(i, lo, hi) for (lo, hi), i in reach.items()]

    def _check_launch(self, grid: tuple, block: tuple, shared_mem: int) -> None:
        threads = block[0] * block[1] * block[2]
        if (min(grid) < 1 or min(block) < 1 or threads > MAX_THREADS or block[2] > 64
                or grid[0] >= 2**31 or max(grid[1:]) > 65535):
            raise CUDADriverError("CUDA_ERROR_INVALID_VALUE: invalid argument "
                                  f"(emulator: kernel {self.name}, grid {grid}, block {block})")
        if self.bound is not None and threads > self.bound:
            raise CUDADriverError(
                "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch "
                f"(emulator: {threads} threads, __launch_bounds__({self.bound}))")
        if shared_mem:
            raise NotImplementedError("cupy emulator: dynamic shared memory is not emulated")

    def _check_arg(self, i: int, arg: Any) -> bytes:
        value = _arg_bytes(arg)
        if i >= len(self.params):
            return value  # the count is checked by the caller
        want = abs(self.params[i])
        if len(value) != want:
            raise TypeError(f"kernel {self.name}: argument {i} ({type(arg).__name__}) has "
                            f"{len(value)} bytes, the parameter {want}")
        if self.params[i] < 0 and not _is_device_pointer(int.from_bytes(value, "little")):
            raise CUDADriverError(
                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered (emulator:"
                f" argument {i} of kernel {self.name} points outside device memory)")
        return value


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
    if _compiler() is None:
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
