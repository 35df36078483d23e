"""The CUDA runtime: kernels compiled by NVRTC through CuPy, tensors that wrap CuPy arrays.

CuPy is optional (`pip install tvmlite[cuda]`) and imported only when CUDA work must run:
building for CUDA and reading the source need neither CuPy nor a GPU. Running without them
raises `CudaUnavailableError`, which says so.

- `CudaKernelLibrary` mirrors `vm.kernels.KernelLibrary` (`signatures`, `load()`,
  `get_function(name)`): a function takes the checked native arguments of the kernel ABI
  (device pointers, scalars, shape-var values), evaluates the launch dimensions and launches
  each kernel of the prim_func on CuPy's current stream. Modules are cached by source hash.
- NDArrays on `tvm.cuda()` keep a CuPy array in `_arr` and its device address in `_ptr`;
  the helpers here implement their device-specific methods (ndarray.py dispatches to them).
- `prepare_vm` / `alloc_on` are the VM's hooks (vm.py, builtins.py call them for cuda).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Union

import numpy as np

from .device import Device, kDLCPU, kDLCUDA
from .kernel_signature import KernelSignature

# A launch extent evaluated per call: an int, a host-known variable's name, or (op, a, b).
Dim = Union[int, str, tuple]
_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "min": min, "max": max,
}


VECTOR_ALIGN = 16  # bytes: the widest vector access the CUDA codegen emits (float4)


class CudaUnavailableError(RuntimeError):
    """CUDA work was asked for, but CuPy or a GPU is missing."""


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """One `__global__` kernel and its grid (blockIdx extents) and block (threadIdx extents)."""

    kernel: str
    grid: tuple[Dim, Dim, Dim]
    block: tuple[Dim, Dim, Dim]


@dataclass(frozen=True, slots=True)
class CudaFunction:
    """A prim_func on the GPU: its launches in order, workspace (name, dtype, elements), and
    the arguments its kernels read or write with 16-byte vector accesses (`float4`), which
    must be 16-byte aligned."""

    name: str
    launches: tuple[LaunchSpec, ...]
    workspace: tuple[tuple[str, str, Dim], ...] = ()
    aligned: tuple[int, ...] = ()


def eval_dim(d: Dim, env: dict[str, int]) -> int:
    if isinstance(d, int):
        return d
    if isinstance(d, str):
        return int(env[d])
    op, a, b = d
    return _OPS[op](eval_dim(a, env), eval_dim(b, env))


def cupy_module() -> Any:
    """CuPy, with a GPU behind it, or a CudaUnavailableError saying what is missing."""
    try:
        import cupy
    except ImportError as err:
        raise CudaUnavailableError(
            "the CUDA target needs CuPy and an NVIDIA GPU to run: pip install 'tvmlite[cuda]' "
            f"(or a cupy-cuda12x wheel). Building and get_source() work without them ({err})"
        ) from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # CuPy raises its own CUDARuntimeError without a driver
        raise CudaUnavailableError(f"CuPy is installed but finds no CUDA GPU ({err})") from None
    if count == 0:
        raise CudaUnavailableError("CuPy is installed but finds no CUDA GPU")
    return cupy


_MODULES: dict[str, Any] = {}  # source hash -> cupy.RawModule (NVRTC compiles once per source)


class CudaKernelLibrary:
    """CUDA source, kernel signatures and launch plans; `load()` compiles with NVRTC once."""

    device_type = kDLCUDA

    def __init__(self, source: str, signatures: dict[str, KernelSignature],
                 functions: dict[str, CudaFunction], arch: str = "") -> None:
        self.source = source
        self.signatures = dict(signatures)
        self.functions = dict(functions)
        self.arch = arch
        self._module: Any = None
        self._launchers: dict[str, Callable[..., None]] = {}

    @property
    def llvm_ir(self) -> str:
        raise NotImplementedError("this executable was built for CUDA; exporting CUDA "
                                  "executables to a file is not supported yet")

    def load(self) -> "CudaKernelLibrary":
        if self._module is None:
            cupy = cupy_module()
            key = hashlib.sha256(self.source.encode()).hexdigest()
            if key not in _MODULES:
                # NOTE: -std=c++17 for the templates in the helpers; NVRTC picks the GPU's arch
                _MODULES[key] = cupy.RawModule(code=self.source, options=("-std=c++17",))
            self._module = _MODULES[key]
        return self

    def get_function(self, name: str) -> Callable[..., None]:
        """A launcher taking the native arguments of kernel `name` (see module docstring)."""
        fn = self._launchers.get(name)
        if fn is None:
            self.load()
            fn = self._launchers[name] = _launcher(self._module, self.signatures[name],
                                                   self.functions[name])
        return fn

    def get_source(self, fmt: str = "cu") -> str:
        return self.source

    def __repr__(self) -> str:
        return f"CudaKernelLibrary({sorted(self.signatures)}, loaded={self._module is not None})"


def _arg_converters(sig: KernelSignature) -> list[Callable[[Any], Any]]:
    """How each native argument travels to the kernel: pointers as uint64, scalars typed."""
    conv: list[Callable[[Any], Any]] = []
    for p in sig.params:
        conv.append(np.uint64 if p.kind == "buffer" else np.dtype(p.dtype).type)
    conv += [np.int64] * len(sig.shape_vars)
    return conv


def _launcher(module: Any, sig: KernelSignature, func: CudaFunction) -> Callable[..., None]:
    import cupy

    kernels = [(module.get_function(s.kernel), s) for s in func.launches]
    conv = _arg_converters(sig)
    names = [p.name for p in sig.params] + list(sig.shape_vars)

    aligned = [(i, names[i]) for i in func.aligned]

    def launch(*native: Any) -> None:
        for i, pname in aligned:  # NOTE: a misaligned float4 access faults on the GPU
            if int(native[i]) % VECTOR_ALIGN:
                raise ValueError(f"kernel {func.name!r}: buffer {pname!r} is read or written "
                                 f"{VECTOR_ALIGN} bytes at a time and must start at a "
                                 f"{VECTOR_ALIGN}-byte aligned address; got {int(native[i]):#x} "
                                 f"(a view into another array? pass a copy)")
        env = dict(zip(names, native))
        args = [c(a) for c, a in zip(conv, native)]
        scratch = [cupy.empty(max(1, eval_dim(n, env)), dtype) for _, dtype, n in func.workspace]
        args += [np.uint64(a.data.ptr) for a in scratch]
        for kernel, spec in kernels:
            grid = tuple(eval_dim(d, env) for d in spec.grid)
            block = tuple(eval_dim(d, env) for d in spec.block)
            if min(grid) > 0 and min(block) > 0:  # an empty launch is an error in CUDA
                kernel(grid, block, tuple(args))
        del scratch  # NOTE: CuPy's pool reuses it only after work queued on this stream

    return launch


# ---------------------------------------------------------------------------------------------
# NDArrays on the GPU (vm/ndarray.py dispatches here for non-cpu devices)


def init_device_array(nd: Any, data: Any, dev: Device) -> None:
    """Fill NDArray `nd` with a CuPy copy (numpy input) or view (CuPy input) of `data`."""
    if dev.device_type != kDLCUDA:
        raise ValueError(f"device {dev} is not supported (tvmlite runs on cpu and cuda)")
    cupy = cupy_module()
    with cupy.cuda.Device(dev.device_id):
        src = cupy.asarray(data)
        # NOTE: CuPy's ascontiguousarray turns a 0-d array into shape (1,); keep the rank
        arr = cupy.ascontiguousarray(src).reshape(src.shape)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    from .ndarray import intern_sig

    nd._arr = arr
    nd._ptr = int(arr.data.ptr)
    nd._sig = intern_sig((tuple(arr.shape), arr.dtype.name, dev))


def to_numpy(arr: Any) -> np.ndarray:
    return arr.get() if hasattr(arr, "get") and not isinstance(arr, np.ndarray) else arr.copy()


def copy_into(dst: Any, src: Any) -> None:
    """Copy `src` (numpy or CuPy) into CuPy array `dst`, across devices as needed."""
    cupy = cupy_module()
    if isinstance(src, np.ndarray):
        dst.set(np.ascontiguousarray(src.astype(dst.dtype, copy=False)))
    else:
        cupy.copyto(dst, src.astype(dst.dtype, copy=False))


def from_dlpack(obj: Any) -> Any:
    """A CuPy view of a CUDA DLPack tensor (torch, CuPy, JAX ...)."""
    return cupy_module().from_dlpack(obj)


def is_device_array(x: Any) -> bool:
    return hasattr(x, "__cuda_array_interface__") and not isinstance(x, np.ndarray)


def sync(dev: Device) -> None:
    cupy = cupy_module()
    with cupy.cuda.Device(dev.device_id):
        cupy.cuda.get_current_stream().synchronize()


# ---------------------------------------------------------------------------------------------
# VM hooks


def is_cuda_executable(ex: Any) -> bool:
    return getattr(ex.kernels, "device_type", kDLCPU) == kDLCUDA


def prepare_vm(ex: Any, device: Device, mode: str) -> tuple[Any, str]:
    """The executable to run on `device` (constants copied there) and the VM mode to use.

    The native fast path compiles host code that calls LLVM kernels directly, so a CUDA VM
    uses the closure path ("auto" -> "closure"); the interpreter stays available.
    """
    if device.device_type != (kDLCUDA if is_cuda_executable(ex) else kDLCPU):
        built = "cuda" if is_cuda_executable(ex) else "llvm"
        raise ValueError(f"this executable was built for target {built!r} and cannot run on "
                         f"{device}; build with target='cuda' for tvm.cuda(), 'llvm' for "
                         f"tvm.cpu()")
    from .ndarray import NDArray

    moved = copy.copy(ex)
    moved.constants = [NDArray(c._arr, device) if isinstance(c, NDArray) else c
                       for c in ex.constants]
    return moved, ("closure" if mode == "auto" else mode)


def alloc_on(device: Device) -> Callable[..., Any]:
    """The `vm.builtin.alloc_tensor` of a CUDA VM: CuPy allocations on `device`."""
    cupy = cupy_module()
    from .ndarray import NDArray, intern_sig

    def alloc_tensor(dtype: str, *dims: int) -> NDArray:
        shape = tuple(int(d) for d in dims)
        if any(d < 0 for d in shape):
            raise ValueError(f"alloc_tensor: negative dimension in shape {shape}")
        with cupy.cuda.Device(device.device_id):
            arr = cupy.empty(shape, dtype)
        return NDArray._wrap(arr, intern_sig((shape, arr.dtype.name, device)), int(arr.data.ptr))

    return alloc_tensor


# ---------------------------------------------------------------------------------------------
# tvm.build(..., target="cuda")


def cuda_module(lib: CudaKernelLibrary) -> Any:
    """What `tvm.build(func, target="cuda")` returns (kernel_module imports this module)."""
    from .kernel_module import KernelModule, ProfileResult

    class CudaModule(KernelModule):
        """Kernels on the GPU; the source is readable without CuPy, calls need it."""

        def __init__(self, lib: CudaKernelLibrary) -> None:
            self.lib = lib  # type: ignore[assignment]  # NOTE: no load(): NVRTC runs on first call
            self._funcs = {}

        def get_source(self, fmt: str = "cu") -> str:
            return self.lib.source  # type: ignore[attr-defined]

        inspect_source = get_source

        @property
        def imported_modules(self) -> list[Any]:
            return [self]  # TVM users read rt_mod.imported_modules[0].get_source()

        def time_evaluator(self, name: str, dev: Any = None, number: int = 10, repeat: int = 1,
                           min_repeat_ms: float = 0, **_: Any) -> Callable[..., ProfileResult]:
            return gpu_time_evaluator(self[name], number, repeat)

        def __repr__(self) -> str:
            return f"CudaModule({sorted(self.lib.signatures)})"

    return CudaModule(lib)


def gpu_time_evaluator(fn: Callable[..., Any], number: int = 10, repeat: int = 1
                       ) -> Callable[..., Any]:
    """TVM's time_evaluator on the GPU: CUDA events around `number` calls, per repeat."""
    from .kernel_module import ProfileResult

    def evaluate(*args: Any) -> ProfileResult:
        cupy = cupy_module()
        fn(*args)  # warm up: the first call compiles the module
        results = []
        for _ in range(max(1, repeat)):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            for _ in range(max(1, number)):
                fn(*args)
            end.record()
            end.synchronize()
            results.append(cupy.cuda.get_elapsed_time(start, end) / 1e3 / max(1, number))
        mean = float(np.mean(results))
        return ProfileResult(mean, float(np.median(results)), min(results), max(results),
                             float(np.std(results)), tuple(results))

    return evaluate
