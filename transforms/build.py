"""The build pipeline: IRModule -> vm Executable (graph functions) or kernel module (TIR only)."""

from __future__ import annotations

from typing import Any

from ..ir.expr import Function
from ..ir.module import IRModule
from ..tir.function import PrimFunc
from .bind_params import BindParams
from .compute_prim_value import host_expression
from .exec_builder import ExecBuilder
from .lower_to_vm import lower_function


def build_executable(mod: IRModule, target: Any = "llvm", params: dict[str, Any] | None = None,
                     relax_pipeline: Any = "default") -> Any:
    """relax.build: compile every prim_func to one kernel library and every graph function to
    bytecode; `params` are bound into `main` first (as `relax.build(mod, params=...)` does).
    `relax_pipeline` (a Pass, a pipeline name, or None) runs next; operators it leaves are
    legalized anyway, since the VM only runs call_tir and packed calls. A named pipeline's
    build is cached whole (transforms/executable_cache.py)."""
    from .executable_cache import cached_build

    if not isinstance(mod, IRModule):
        raise TypeError(f"relax.build expects an IRModule, got {type(mod).__name__}")
    return cached_build(mod, target, params, relax_pipeline, _build_uncached)


def _build_uncached(mod: IRModule, target: Any, params: dict[str, Any] | None,
                    relax_pipeline: Any) -> Any:
    from ..tir.kernel_build import build_kernel_library
    from ..vm.executable import Executable, FuncEntry, VMFunction

    if params:
        mod = BindParams("main", params)(mod)
    mod = _run_pipeline(mod, relax_pipeline)
    # host functions returning a value are evaluated by the VM where they are called
    prim_funcs = {gv.name_hint: f for gv, f in mod.items()
                  if isinstance(f, PrimFunc) and host_expression(f) is None}
    kernels = build_kernel_library(prim_funcs, target)  # LLVM, or CUDA C (issue 7)
    builder = ExecBuilder(kernels.signatures)
    for gv, func in mod.items():
        if isinstance(func, Function):
            lower_function(builder, mod, gv.name_hint, func)
    functions = {
        name: VMFunction(name, tuple(p.name_hint for p in func.params),
                         builder.param_descriptions(func), num_regs, tuple(code))
        for name, (func, code, num_regs) in builder.functions.items()
    }
    table = [FuncEntry(kind, name) for kind, name in builder.func_table]
    return Executable(table, functions, builder.constants, kernels)


def _run_pipeline(mod: IRModule, pipeline: Any) -> IRModule:
    from ..topi.schedule_mode import default_schedules
    from .legalize import LegalizeOps
    from .pipeline import get_pipeline

    if isinstance(pipeline, str):
        pipeline = get_pipeline(pipeline)
    with default_schedules():  # the kernels we compile are the scheduled ones
        if pipeline is not None:
            mod = pipeline(mod)
        return LegalizeOps()(mod)


def build_kernels(func_or_mod: Any, target: Any = "llvm") -> Any:
    """tvm.build: a prim_func (or a module of them) -> a callable kernel module."""
    from ..tir.kernel_build import build_kernel_library
    from ..vm.cuda import CudaKernelLibrary, cuda_module
    from ..vm.kernel_module import KernelModule

    if isinstance(func_or_mod, PrimFunc):
        name = func_or_mod.attr_dict.get("global_symbol", "main")
        funcs = {name: func_or_mod}
    elif isinstance(func_or_mod, IRModule):
        funcs = {gv.name_hint: f for gv, f in func_or_mod.items() if isinstance(f, PrimFunc)}
        if len(funcs) != len(func_or_mod.functions):
            raise TypeError("tvm.build takes prim_funcs only; use tvm.compile or relax.build "
                            "for a module with graph functions")
    else:
        raise TypeError(f"tvm.build expects a PrimFunc or an IRModule, got "
                        f"{type(func_or_mod).__name__}")
    lib = build_kernel_library(funcs, target)
    return cuda_module(lib) if isinstance(lib, CudaKernelLibrary) else KernelModule(lib)
