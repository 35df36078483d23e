"""KernelLibrary: an LLVM module of kernels (docs/internals.md section 2), JIT-compiled once.

`load()` parses the IR, optimizes it at -O3 for the host CPU (its own name and features, so
vector units are used), and JIT-compiles it with MCJIT. The fast path adds its host functions
to the same engine (`add_ir`) so they call the kernels directly.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable

import llvmlite.binding as llvm

from . import bounds_runtime, libm_aliases, llvm_pipeline
from .kernel_objects import (KernelUnit, background_compiler, compile_object, link_objects,
                             object_target_machine)
from .kernel_signature import KernelParam, KernelSignature
from .llvm_helpers import HELPER_MIN_IR, compile_in_helper

_C_SCALAR = {
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
    "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "bool": ctypes.c_bool,
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}
_LLVM_LOCK = threading.Lock()  # NOTE: llvmlite's target/JIT setup is not thread-safe


class KernelLoadError(RuntimeError):
    """The kernel IR could not be parsed, verified or compiled."""


_new_target_machine = llvm_pipeline.new_target_machine


def target_machine() -> Any:
    """The host's target machine (-O3, host CPU name and features) for passes and layout.

    NOTE: an MCJIT engine takes ownership of its target machine and frees it with itself, so
    each engine gets its own (`_new_target_machine`); this shared one is never given away.
    """
    return llvm_pipeline.pass_target_machine()


def ctypes_argtypes(sig: KernelSignature) -> list[Any]:
    """The C types of a kernel's arguments: buffers are pointers, then i64 per shape var."""
    types: list[Any] = []
    for p in sig.params:
        types.append(ctypes.c_void_p if p.kind == "buffer" else _scalar_ctype(p))
    types += [ctypes.c_int64] * len(sig.shape_vars)
    return types


def _scalar_ctype(p: KernelParam) -> Any:
    if p.dtype not in _C_SCALAR:
        raise KernelLoadError(f"scalar parameter {p.name!r} has unsupported dtype {p.dtype!r}")
    return _C_SCALAR[p.dtype]


def _optimize(module: Any) -> None:
    llvm_pipeline.optimize(module)


def _parse(llvm_ir: str, what: str) -> Any:
    try:
        return llvm_pipeline.parse(llvm_ir)
    except RuntimeError as err:
        raise KernelLoadError(f"{what}: invalid LLVM IR: {str(err).strip()}") from None


_IN_PROCESS = threading.Lock()  # held while this process's LLVM compiles a unit


def compile_unit(unit: KernelUnit, cache: Any) -> bytes:
    """Object code of one kernel's module, optimized as `load()` optimizes a whole library;
    stored in `cache` (a tir.kernel_cache.KernelCache or None) under the unit's key. A big
    module that finds this process's LLVM busy goes to a helper process (vm/llvm_helpers.py)."""
    text = unit.llvm_ir or ""
    obj = None
    if len(text) >= HELPER_MIN_IR and not _IN_PROCESS.acquire(blocking=False):
        obj = compile_in_helper(unit.name, text)
        if obj is None:
            _IN_PROCESS.acquire()
    elif len(text) < HELPER_MIN_IR:
        _IN_PROCESS.acquire()
    if obj is None:
        try:  # NOTE: the lock is held here
            obj = _compile_here(unit)
        finally:
            _IN_PROCESS.release()
    if cache is not None and unit.key:
        cache.put(unit.key, obj)
    return obj


def _compile_here(unit: KernelUnit) -> bytes:
    module = _parse(unit.llvm_ir or "", f"kernel {unit.name!r}")
    llvm_pipeline.internalize_helpers(module, unit.name)
    _optimize(module)
    return compile_object(module, _new_target_machine)


def start_compiling(unit: KernelUnit, cache: Any) -> None:
    """Compiles `unit` on the LLVM thread while the caller goes on lowering the next kernels
    (LLVM runs without the GIL; llvmlite serializes its own calls); `load()` waits for it."""
    target_machine()  # NOTE: both made here, on the caller's thread, never by two at once
    object_target_machine(_new_target_machine)
    unit.pending = background_compiler().submit(compile_unit, unit, cache)


class KernelLibrary:
    """Kernels as LLVM IR text plus their signatures; `load()` JIT-compiles them once.

    With `units` (tir/cached_build.py: one per kernel, from the kernel cache or to compile),
    `llvm_ir` may be a function that makes the one-module text on demand (export, get_source)
    and `load()` links object code instead, storing what it compiles in `cache`."""

    def __init__(self, llvm_ir: str | Callable[[], str], signatures: dict[str, KernelSignature],
                 units: list[KernelUnit] | None = None, cache: Any = None) -> None:
        self._llvm_ir = llvm_ir
        self.signatures = dict(signatures)
        self.units = units
        self._cache = cache
        self._engine: Any = None
        self._cfuncs: dict[str, Callable[..., Any]] = {}
        self._mentioned: dict[str, bool] = {}

    @property
    def llvm_ir(self) -> str:
        if callable(self._llvm_ir):
            self._llvm_ir = self._llvm_ir()
        return self._llvm_ir

    def load(self) -> "KernelLibrary":
        """Compile (once; later calls return at once) and return self."""
        if self._engine is not None:
            return self
        if self.mentions("tvmlite_parallel_launch"):
            from .parallel_runtime import ensure_loaded  # parallel loops call the native pool

            ensure_loaded(self._cache)
        if self.mentions(bounds_runtime.SYMBOL):
            bounds_runtime.ensure_loaded()  # checks report through a symbol of the runtime
        if self.mentions(libm_aliases.PREFIX):
            libm_aliases.ensure_loaded()
        with _LLVM_LOCK:
            if self._engine is None and self.units is not None:
                self._engine, self._modules = link_objects(self._unit_objects(),
                                                           _new_target_machine())
            elif self._engine is None:
                module = _parse(self.llvm_ir or "", "kernel library")
                _optimize(module)
                engine = llvm.create_mcjit_compiler(module, _new_target_machine())
                engine.finalize_object()
                engine.run_static_constructors()
                self._modules = [module]  # NOTE: the engine needs its modules kept alive
                self._engine = engine
        for name in self.signatures:
            if not self._engine.get_function_address(name):
                raise KernelLoadError(f"kernel {name!r} has a signature but no LLVM function")
        return self

    def mentions(self, symbol: str) -> bool:
        """Whether any kernel refers to `symbol` (read from each unit's IR or object code, so
        a cached library never makes its one-module text just to ask)."""
        found = self._mentioned.get(symbol)
        if found is None:  # NOTE: asked per kernel lookup; the kernels never change, so once
            found = (any(unit.mentions(symbol) for unit in self.units)
                     if self.units is not None else symbol in (self.llvm_ir or ""))
            self._mentioned[symbol] = found
        return found

    def _unit_objects(self) -> list[bytes]:
        """Every unit's object code: compiled (and stored in the cache) where missing."""
        for unit in self.units or []:
            if unit.obj is None:
                pending, unit.pending = unit.pending, None
                unit.obj = pending.result() if pending else compile_unit(unit, self._cache)
                unit.llvm_ir = None
        return [unit.obj for unit in self.units or [] if unit.obj is not None]

    def add_ir(self, llvm_ir: str, what: str = "host function") -> None:
        """Compile more IR into the same engine; its calls to kernels are direct."""
        self.load()
        module = _parse(llvm_ir, what)
        # NOTE: host functions are straight-line calls of kernels, for which the code generator
        # (at -O3 in the engine) alone makes the same machine code as after the -O3 module
        # passes (checked on the bench models' hosts); the passes were ~2 ms of a warm build
        llvm_pipeline.optimize(module, speed_level=0)
        with _LLVM_LOCK:
            self._engine.add_module(module)
            self._engine.finalize_object()
            self._modules.append(module)

    def get_address(self, name: str) -> int:
        self.load()
        addr = self._engine.get_function_address(name)
        if not addr:
            raise KernelLoadError(f"no compiled function named {name!r}")
        return int(addr)

    def get_function(self, name: str) -> Callable[..., Any]:
        """A ctypes function for kernel `name`; calls release the GIL (kernels may run long)."""
        fn = self._cfuncs.get(name)
        if fn is None:
            sig = self.signatures.get(name)
            if sig is None:
                raise KernelLoadError(f"no kernel named {name!r}; have {sorted(self.signatures)}")
            proto = ctypes.CFUNCTYPE(None, *ctypes_argtypes(sig))
            fn = proto(self.get_address(name))
            if self.mentions(bounds_runtime.SYMBOL):
                fn = bounds_runtime.checked(fn)
            self._cfuncs[name] = fn
        return fn

    def __repr__(self) -> str:
        return f"KernelLibrary({sorted(self.signatures)}, loaded={self._engine is not None})"
