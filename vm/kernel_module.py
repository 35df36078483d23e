"""What `tvm.build(prim_func)` returns: kernels callable with NDArrays, every argument checked.

A kernel is native code that trusts its pointers, so each call is checked against the
KernelSignature first (count, tensor type, rank, dtype, static dims, consistent symbolic dims);
a bad call raises ValueError/TypeError naming the parameter, never reaches the kernel.
"""

from __future__ import annotations

import functools
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .device import device, kDLCPU
from .builtins import compile_shape_program
from .kernel_signature import KernelParam, KernelSignature, computed_dim, shape_text
from .kernels import KernelLibrary
from .ndarray import NDArray, data_ptr


class ArgumentCountError(ValueError, RuntimeError):
    """Wrong number of arguments: a ValueError, and a RuntimeError as TVM raises."""


def _tensor_parts(where: str, p: KernelParam, x: Any, device_type: int = kDLCPU
                  ) -> tuple[tuple[int, ...], str, int]:
    if type(x) is NDArray:
        if x._sig[2].device_type != device_type:  # a pointer into the wrong memory: refuse
            raise ValueError(f"{where}: parameter {p.name!r} is on {x._sig[2]}, but the kernel "
                             f"runs on {device(device_type, 0)}; copy it with .copyto(dev)")
        return x._sig[0], x._sig[1], x._ptr
    if device_type != kDLCPU:
        raise ValueError(f"{where}: parameter {p.name!r} is a {type(x).__name__} in host "
                         f"memory; the CUDA kernel needs tvm.nd.array(x, tvm.cuda())")
    if isinstance(x, np.ndarray):
        if not x.flags.c_contiguous:
            raise ValueError(f"{where}: parameter {p.name!r} needs a C-contiguous array "
                             f"(got strides {x.strides}); use np.ascontiguousarray")
        return tuple(x.shape), x.dtype.name, data_ptr(x)
    raise TypeError(f"{where}: parameter {p.name!r} expects a tensor (tvm.nd.NDArray or "
                    f"numpy.ndarray), got {type(x).__name__}")


def _bind_dims(where: str, p: KernelParam, shape: tuple[int, ...], env: dict[str, int]) -> None:
    for axis, (want, got) in enumerate(zip(p.shape, shape)):
        if computed_dim(want) is not None:
            continue  # checked once every plain shape var is bound (_check_computed_dims)
        if isinstance(want, str):
            bound = env.setdefault(want, got)
            if bound != got:
                raise ValueError(f"{where}: parameter {p.name!r} has {want}={got} on axis "
                                 f"{axis}, but {want}={bound} from an earlier argument")
        elif want != got:
            raise ValueError(f"{where}: parameter {p.name!r} expects shape {shape_text(p.shape)}, "
                             f"got {shape} (axis {axis}: {got} != {want})")


def check_kernel_args(sig: KernelSignature, args: Sequence[Any], where: str,
                      with_shape_vars: bool = False) -> list[Any]:
    """Check `args` against `sig`; return the native arguments (pointers, scalars, shape vars).

    Users pass the parameters only (shape vars are bound from them); the VM's bytecode also
    passes the shape var values (`with_shape_vars`), which must agree with the tensors.
    """
    extra = len(sig.shape_vars) if with_shape_vars else 0
    if len(args) != len(sig.params) + extra:
        names = ", ".join([p.name for p in sig.params] + list(sig.shape_vars)[:extra])
        raise ArgumentCountError(f"{where} takes {len(sig.params) + extra} arguments "
                                 f"({names}), got {len(args)}")
    given = dict(zip(sig.shape_vars, args[len(sig.params):])) if extra else {}
    args = args[:len(sig.params)]
    env: dict[str, int] = {}
    native: list[Any] = []
    for p, x in zip(sig.params, args):
        if p.kind == "scalar":
            if isinstance(x, (NDArray, np.ndarray)) or not isinstance(x, (int, float, np.number)):
                raise TypeError(f"{where}: parameter {p.name!r} expects a {p.dtype} scalar, "
                                f"got {type(x).__name__}")
            # NOTE: an integer scalar may size a buffer through a computed dim (`n // 2`)
            if p.name in sig.shape_vars or any(p.name in q.shape for q in sig.params) or (
                    p.dtype.startswith(("int", "uint")) and isinstance(x, (int, np.integer))):
                _bind_dims(where, KernelParam(p.name, "scalar", p.dtype, (p.name,)), (int(x),),
                           env)
            native.append(x)
            continue
        shape, dtype, ptr = _tensor_parts(where, p, x, sig.device_type)
        if len(shape) != len(p.shape):
            raise ValueError(f"{where}: parameter {p.name!r} expects rank {len(p.shape)} "
                             f"shape {shape_text(p.shape)}, got rank {len(shape)} shape {shape}")
        # NOTE: numpy has no bfloat16: such a tensor's 16-bit patterns come as uint16
        if dtype != p.dtype and (p.dtype, dtype) != ("bfloat16", "uint16"):
            raise ValueError(f"{where}: parameter {p.name!r} expects dtype {p.dtype}, "
                             f"got {dtype}")
        _bind_dims(where, p, shape, env)
        native.append(ptr)
    for v, value in given.items():
        if env.get(v, value) != value:
            raise ValueError(f"{where}: shape variable {v!r} is passed as {value}, but the "
                             f"tensors say {v}={env[v]}")
        env[v] = value
    missing = [v for v in sig.shape_vars if v not in env]
    if missing:
        raise ValueError(f"{where}: shape variables {missing} are not bound by any argument")
    _check_computed_dims(where, sig, args, env)
    native += [env[v] for v in sig.shape_vars]
    return native


def _check_computed_dims(where: str, sig: KernelSignature, args: Sequence[Any],
                         env: dict[str, int]) -> None:
    """A dim like `n * 2` must equal what the bound shape vars say: the kernel will use it."""
    for index, axis, program, names in _computed_dims(sig):
        p = sig.params[index]
        value = program(*[env[n] for n in names])
        got = _tensor_parts(where, p, args[index], sig.device_type)[0][axis]
        if got != value:
            raise ValueError(f"{where}: parameter {p.name!r} axis {axis} must have "
                             f"{value} elements (from its computed dim), got {got}")


@functools.lru_cache(maxsize=None)
def _computed_dims(sig: KernelSignature) -> tuple[tuple[int, int, Callable[..., int],
                                                        tuple[str, ...]], ...]:
    """(param index, axis, compiled program, shape vars) per computed dim, found once per
    signature: most kernels have none, and then a call checks nothing more."""
    found = []
    for index, p in enumerate(sig.params):
        for axis, want in enumerate(p.shape):
            computed = computed_dim(want)
            if computed is not None:
                found.append((index, axis, compile_shape_program(computed[0]), computed[1]))
    return tuple(found)


@dataclass
class ProfileResult:
    """TVM's timing result: seconds per run, one entry per repeat."""

    mean: float
    median: float
    min: float
    max: float
    std: float
    results: tuple[float, ...]

    def __str__(self) -> str:
        return (f"Execution time summary:\n mean (ms)   median (ms)    max (ms)     min (ms)"
                f"     std (ms)\n {self.mean * 1e3:10.4f}  {self.median * 1e3:10.4f}  "
                f"{self.max * 1e3:10.4f}  {self.min * 1e3:10.4f}  {self.std * 1e3:10.4f}")


def time_evaluator(fn: Callable[..., Any], number: int = 10, repeat: int = 1,
                   min_repeat_ms: float = 0) -> Callable[..., ProfileResult]:
    """TVM's `time_evaluator`: `f(*args)` runs `fn` `number` times per repeat."""

    def evaluate(*args: Any) -> ProfileResult:
        fn(*args)  # warm up (first call may compile or fault in memory)
        results = []
        for _ in range(max(1, repeat)):
            n = max(1, number)
            while True:
                start = time.perf_counter()
                for _ in range(n):
                    fn(*args)
                elapsed = time.perf_counter() - start
                if elapsed * 1e3 >= min_repeat_ms:
                    break
                n *= 2
            results.append(elapsed / n)
        std = statistics.pstdev(results) if len(results) > 1 else 0.0
        return ProfileResult(statistics.fmean(results), statistics.median(results),
                             min(results), max(results), std, tuple(results))

    return evaluate


class KernelFunction:
    """One kernel, callable with NDArrays or numpy arrays (outputs are written in place)."""

    def __init__(self, lib: KernelLibrary, name: str) -> None:
        self.name = name
        self.signature = lib.signatures[name]
        self._lib = lib  # NOTE: owns the JIT engine `_fn` points into
        self._fn = lib.load().get_function(name)

    def __call__(self, *args: Any) -> None:
        self._fn(*check_kernel_args(self.signature, args, f"kernel {self.name!r}"))


class KernelModule:
    """`tvm.build` result: `mod["name"](*args)`, `mod(*args)`, `mod.time_evaluator(...)`."""

    def __init__(self, lib: KernelLibrary) -> None:
        self.lib = lib.load()
        self._funcs: dict[str, KernelFunction] = {}

    def __getitem__(self, name: str) -> KernelFunction:
        if name not in self.lib.signatures and name == "main" and len(self.lib.signatures) == 1:
            name = next(iter(self.lib.signatures))  # a built prim_func answers to "main" too
        if name not in self.lib.signatures:
            raise AttributeError(f"module has no function {name!r}; it has "
                                 f"{sorted(self.lib.signatures)}")
        if name not in self._funcs:
            self._funcs[name] = KernelFunction(self.lib, name)
        return self._funcs[name]

    get_function = __getitem__

    def __call__(self, *args: Any) -> None:
        if len(self.lib.signatures) != 1:
            raise ValueError(f"module has {len(self.lib.signatures)} kernels; pick one with "
                             f"mod[name]: {sorted(self.lib.signatures)}")
        self["main"](*args)

    def time_evaluator(self, name: str, dev: Any = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, **_: Any) -> Callable[..., ProfileResult]:
        return time_evaluator(self[name], number, repeat, min_repeat_ms)

    @property
    def mod(self) -> "KernelModule":
        return self  # `lib.mod.time_evaluator(...)` as in older TVM tutorials

    def get_source(self, fmt: str = "ll") -> str:
        return self.lib.llvm_ir

    def __repr__(self) -> str:
        return f"KernelModule({sorted(self.lib.signatures)})"
