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

from . import bounds_runtime
from .kernel_signature import KernelParam, KernelSignature

_C_SCALAR = {
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
    "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "bool": ctypes.c_bool,
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}
_LLVM_LOCK = threading.Lock()  # NOTE: llvmlite's target/JIT setup is not thread-safe
_TM: Any = None


class KernelLoadError(RuntimeError):
    """The kernel IR could not be parsed, verified or compiled."""


def _new_target_machine() -> Any:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=3, codemodel="jitdefault")


def target_machine() -> Any:
    """The host's target machine (-O3, host CPU name and features) for passes and layout.

    NOTE: an MCJIT engine takes ownership of its target machine and frees it with itself, so
    each engine gets its own (`_new_target_machine`); this shared one is never given away.
    """
    global _TM
    if _TM is None:
        _TM = _new_target_machine()
    return _TM


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
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(target_machine(), pto)
    pb.getModulePassManager().run(module, pb)


def _parse(llvm_ir: str, what: str) -> Any:
    try:
        module = llvm.parse_assembly(llvm_ir)
        module.verify()
    except RuntimeError as err:
        raise KernelLoadError(f"{what}: invalid LLVM IR: {str(err).strip()}") from None
    tm = target_machine()
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    return module


class KernelLibrary:
    """Kernels as LLVM IR text plus their signatures; `load()` JIT-compiles them once."""

    def __init__(self, llvm_ir: str, signatures: dict[str, KernelSignature]) -> None:
        self.llvm_ir = llvm_ir
        self.signatures = dict(signatures)
        self._engine: Any = None
        self._cfuncs: dict[str, Callable[..., Any]] = {}

    def load(self) -> "KernelLibrary":
        """Compile (once; later calls return at once) and return self."""
        if self._engine is not None:
            return self
        if "tvmlite_parallel_launch" in (self.llvm_ir or ""):
            from .parallel_runtime import ensure_loaded  # parallel loops call the native pool

            ensure_loaded()
        if bounds_runtime.instrumented(self.llvm_ir):
            bounds_runtime.ensure_loaded()  # checks report through a symbol of the runtime
        with _LLVM_LOCK:
            if self._engine is None:
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

    def add_ir(self, llvm_ir: str, what: str = "host function") -> None:
        """Compile more IR into the same engine; its calls to kernels are direct."""
        self.load()
        module = _parse(llvm_ir, what)
        _optimize(module)
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
            fn = self._cfuncs[name] = bounds_runtime.checked(proto(self.get_address(name)),
                                                             self.llvm_ir)
        return fn

    def __repr__(self) -> str:
        return f"KernelLibrary({sorted(self.signatures)}, loaded={self._engine is not None})"
