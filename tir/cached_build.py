"""Building a kernel library through the persistent kernel cache (tir/kernel_cache.py).

Each prim_func is one cache entry. Its key digests the prim_func as given (names included),
the kernel's name, the parsed target (fast-math, cores, opt level, every option), the compile
options of the codegen, and `environment_digest()` (CPU, LLVM, tvmlite's version and sources).
Lowering and codegen are deterministic functions of these, so a hit skips them as well as
LLVM: the kernel is loaded from its object code. A miss lowers the kernel into its own LLVM
module, which the LLVM thread compiles (and stores) while the next kernels are lowered; the
build waits for the last of them before it returns (no LLVM work outlives it), and
`KernelLibrary.load()` links the results.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir

from ..vm.kernel_objects import KernelUnit
from ..vm.kernels import KernelLibrary, start_compiling
from .codegen_llvm import CodeGenLLVM
from .compile_mode import compiling
from .function import PrimFunc
from .kernel_cache import KernelCache
from .kernel_fingerprint import NotFingerprintable, environment_digest, fingerprint
from .bounds_instrument import enabled as bounds_checks_enabled
from .lower import lower

CACHE_FORMAT = "tvmlite-kernel-cache-1"  # bump when what an entry holds changes


def kernel_key(name: str, func: PrimFunc, target: Any) -> str | None:
    """The cache key of kernel `name` compiled from `func` for `target` (a parsed Target);
    None when some value in the function has no stable text (it is then compiled uncached)."""
    try:
        return fingerprint(CACHE_FORMAT, environment_digest(), target, name,
                           bounds_checks_enabled(), func)
    except NotFingerprintable:
        return None


def kernel_ir(name: str, func: PrimFunc, target: Any) -> str:
    """The LLVM module text of one kernel alone (what a cache miss compiles)."""
    module = ir.Module(name="tvmlite_kernels")
    gen = CodeGenLLVM(module, fast_math=target.fast_math, num_cores=target.num_cores)
    gen.add_function(name, lower(func))
    return str(module)


def cached_kernel_library(funcs: dict[str, PrimFunc], target: Any, cache: KernelCache
                          ) -> KernelLibrary:
    """A KernelLibrary whose kernels come from `cache` where it has them."""
    from .kernel_build import compile_prim_funcs, kernel_signature

    units, signatures = [], {}
    with compiling():
        for name, func in funcs.items():
            signatures[name] = kernel_signature(name, func)
            key = kernel_key(name, func, target)
            obj = cache.get(key) if key else None
            unit = KernelUnit(name, key, None if obj else kernel_ir(name, func, target), obj,
                              from_cache=obj is not None)
            if obj is None:
                start_compiling(unit, cache)
            units.append(unit)
        # NOTE: the build returns only when the LLVM thread is idle again, so nothing of ours
        # runs in the background afterwards (a fork right after compiling stays safe)
        for unit in units:
            if unit.pending is not None:
                unit.pending.exception()
    return KernelLibrary(lambda: compile_prim_funcs(funcs, target)[0], signatures,
                         units=units, cache=cache)
