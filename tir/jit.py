"""JIT for kernel LLVM IR: optimize at -O3 for the host CPU, compile with MCJIT, call via ctypes.

`vm.kernels.KernelLibrary.load()` can use `jit_kernels`; tests use `call_kernel` to run kernels
on numpy arrays. Kernel symbols resolve libm (`tanhf`, `erff`, `malloc`) from the process.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import llvmlite.binding as llvm
import numpy as np

from ..vm.kernel_signature import KernelSignature

_CTYPES = {
    "bool": ctypes.c_bool, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
    "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float, "float64": ctypes.c_double, "handle": ctypes.c_void_p,
}


@functools.cache
def _init_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def target_machine(cpu: str = "host", features: str = "host", opt: int = 3) -> Any:
    """A new llvmlite TargetMachine; `cpu="host"` means this machine's CPU and features.

    NOTE: not cached: an MCJIT engine takes ownership of its TargetMachine and frees it."""
    _init_llvm()
    if cpu in ("host", "native"):
        cpu = llvm.get_host_cpu_name()
        if features == "host":
            features = llvm.get_host_cpu_features().flatten()
    if features == "host":
        features = ""
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=cpu, features=features, opt=opt,
                                        codemodel="jitdefault")


def optimize(module: Any, tm: Any, level: int = 3) -> None:
    """Runs LLVM's default -O<level> pipeline (vectorizers on) over `module` in place."""
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = level >= 2
    pto.slp_vectorization = level >= 2
    pto.loop_unrolling = level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)


def parse_and_optimize(llvm_ir: str, tm: Any, level: int = 3) -> Any:
    _init_llvm()
    mod = llvm.parse_assembly(llvm_ir)
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    mod.verify()
    optimize(mod, tm, level)
    return mod


class JitEngine:
    """Owns an MCJIT engine holding the compiled kernels; keep it alive while calling them."""

    def __init__(self, engine: Any, module: Any) -> None:
        self.engine = engine
        self.module = module  # the optimized module (its text: `str(self.module)`)

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise KeyError(f"no kernel named {name!r} in this library")
        return addr

    def function(self, sig: KernelSignature) -> Any:
        """A ctypes function for the kernel `sig.name` (ctypes releases the GIL while it runs)."""
        proto = ctypes.CFUNCTYPE(None, *argtypes(sig))
        return proto(self.address(sig.name))

    def optimized_ir(self) -> str:
        return str(self.module)


def jit_kernels(llvm_ir: str, cpu: str = "host", features: str = "host",
                opt_level: int = 3) -> JitEngine:
    """Optimizes and JIT-compiles a kernel module's text; returns the engine."""
    if "tvmlite_parallel_launch" in llvm_ir:
        from ..vm.parallel_runtime import ensure_loaded  # parallel loops call the native pool

        ensure_loaded()
    if "tvmlite_libm_" in llvm_ir:
        from ..vm import libm_aliases

        libm_aliases.ensure_loaded()
    tm = target_machine(cpu, features, opt_level)
    mod = parse_and_optimize(llvm_ir, tm, opt_level)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    return JitEngine(engine, mod)


def argtypes(sig: KernelSignature) -> list[Any]:
    """ctypes argument types in ABI order: pointers, scalars, then int64 shape vars."""
    out = [ctypes.c_void_p if p.kind == "buffer" else _CTYPES[p.dtype] for p in sig.params]
    return out + [ctypes.c_int64] * len(sig.shape_vars)


def call_kernel(fn: Any, sig: KernelSignature, *args: Any) -> None:
    """Calls a kernel on numpy arrays / Python scalars after checking them against `sig`."""
    if len(args) != len(sig.params):
        raise TypeError(f"{sig.name} takes {len(sig.params)} arguments, got {len(args)}")
    dims: dict[str, int] = {}
    cargs: list[Any] = []
    for p, a in zip(sig.params, args):
        if p.kind == "scalar":
            cargs.append(a)
            continue
        _check_array(sig.name, p, a, dims)
        cargs.append(a.ctypes.data)
    cargs += [dims[name] for name in sig.shape_vars]
    fn(*cargs)


def _check_array(kernel: str, p: Any, a: Any, dims: dict[str, int]) -> None:
    where = f"{kernel}: argument {p.name!r}"
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{where} must be a numpy array, got {type(a).__name__}")
    if str(a.dtype) != p.dtype or a.ndim != len(p.shape) or not a.flags.c_contiguous:
        raise ValueError(f"{where} must be a C-contiguous {p.dtype} array of rank "
                         f"{len(p.shape)}, got {a.dtype} rank {a.ndim}")
    for axis, (want, have) in enumerate(zip(p.shape, a.shape)):
        if isinstance(want, str):
            want = dims.setdefault(want, have)
        if want != have:
            raise ValueError(f"{where} has shape {a.shape}; dim {axis} must be {want}")
