"""CUDA C kernels compiled by g++ and run on the CPU: the execution model of the CuPy emulator
(cupy_emulator.py, which re-exports what CuPy users see: RawModule, RawKernel, the errors).

Kernels. `RawModule(code=...)` compiles the source with g++ (`-O1 -std=c++20`), with
emulator/cuda_shim.h force-included (CUDA keywords, `threadIdx`/`blockIdx`/... as globals,
barriers, the runtime below) and emulator/include/ holding stand-ins for cuda_fp16.h (half is
`_Float16`) and cuda_bf16.h. Every `__global__` function gets an `extern "C"` launcher whose
template unpacks the argument pointers by the kernel's own parameter types, so the emulator
never parses C types; it checks each argument's size against them and each pointer against the
live device allocations (`record_allocation`; a host pointer is refused before the kernel can
crash the process). One module is compiled once per process and source.

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
`__launch_bounds__` raise `CUDADriverError`.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent / "emulator"
SHIM = HERE / "cuda_shim.h"
FLAGS = ("-O1", "-std=c++20", "-shared", "-fPIC", "-U_FORTIFY_SOURCE")  # fortify: longjmp checks
MAX_THREADS = 1024
CHECK_RACES = True  # run every launch forwards and backwards, and compare (see RawKernel)


# -- errors (CuPy's names and places) ------------------------------------------------------------


class CUDADriverError(RuntimeError):
    pass


class CompileException(Exception):
    pass


class DataRaceError(RuntimeError):
    """The emulator's own: a kernel's result depends on the order its threads run in."""


# -- device memory: the allocations kernels may point into ----------------------------------------

_ALLOCS: dict[int, tuple[int, int]] = {}  # id(owning numpy array) -> [start, end)


def record_allocation(a: np.ndarray) -> None:
    """Count the memory that owns `a` as device memory, for as long as it lives."""
    owner = a
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    key = id(owner)
    if key not in _ALLOCS:
        start = owner.__array_interface__["data"][0]
        _ALLOCS[key] = (start, start + max(owner.nbytes, 1))
        weakref.finalize(owner, _ALLOCS.pop, key, None)


def _alloc_ranges() -> list[tuple[int, int]]:
    while True:
        try:  # NOTE: a finalizer run by the garbage collector may shrink _ALLOCS meanwhile
            return list(_ALLOCS.values())
        except RuntimeError:
            continue


def is_device_pointer(p: int) -> bool:
    return p == 0 or any(lo <= p <= hi for lo, hi in _alloc_ranges())


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


def compiler() -> str | None:
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
        cxx = compiler()
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
    if hasattr(arg, "__cuda_array_interface__"):  # the emulator's ndarray
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
        if self.params[i] < 0 and not is_device_pointer(int.from_bytes(value, "little")):
            raise CUDADriverError(
                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered (emulator:"
                f" argument {i} of kernel {self.name} points outside device memory)")
        return value
