"""RunCodegen: BYOC step 3, with codegens written in Python (MergeCompositeFunctions, step 2,
is in merge_composite.py).

RunCodegen hands every function with a `Codegen` attribute to the Python function registered
as `relax.ext.<codegen>`, registers what it returns as external functions, and replaces the
calls with destination-passing calls of them. Nothing is rebuilt: a backend is a registration.
It also records which backend made each symbol (vm/external.py), so `export_library` can save
the functions that are `ExternalFunction`s and name the backend of one that is not.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

from ..ir.expr import (
    Call, Expr, ExternFunc, Function, GlobalVarRef, Tuple,
)
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_DPS_PACKED
from ..vm import external, registry
from .merge_composite import MergeCompositeFunctions  # noqa: F401  (its home before)
from .pass_infra import Pass, PassContext


_RUN_IDS = itertools.count()


class CodegenNotFoundError(ValueError):
    """No `relax.ext.<name>` is registered; the message says how to register one."""


def _is_offload_unit(func: Function) -> bool:
    attrs = func.attr_dict
    return "Composite" in attrs or "Codegen" in attrs


def RunCodegen(target_options: dict[str, Any] | None = None,  # noqa: N802
               entry_functions: list[str] | None = None) -> Pass:
    """Offload every `Codegen` function to its registered Python codegen."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        units: dict[str, list[tuple[GlobalVar, Function]]] = {}
        for gv, func in mod.items():
            if isinstance(func, Function) and "Codegen" in func.attr_dict:
                units.setdefault(str(func.attr_dict["Codegen"]), []).append((gv, func))
        externs: dict[GlobalVar, str] = {}
        for backend, funcs in units.items():
            externs.update(_run_backend(backend, funcs, mod, target_options or {}))
        return _replace_calls(mod, externs, entry_functions)

    return Pass(run, "RunCodegen")


def _run_backend(backend: str, funcs: list[tuple[GlobalVar, Function]], mod: IRModule,
                 options: dict[str, Any]) -> dict[GlobalVar, str]:
    codegen = registry.get_global_func(f"relax.ext.{backend}", allow_missing=True)
    if codegen is None:
        known = sorted(n[len("relax.ext."):] for n in registry.list_global_func_names()
                       if n.startswith("relax.ext."))
        raise CodegenNotFoundError(
            f"no codegen is registered for {backend!r} (registered: "
            f"{', '.join(known) or 'none'}). Register one from Python, no rebuild needed:\n"
            f"    @tvm.register_func(\"relax.ext.{backend}\")\n"
            f"    def codegen(functions, options, module):\n"
            f"        return {{f.attrs['global_symbol']: my_dps_callable for f in functions}}")
    built = codegen([f for _, f in funcs], dict(options.get(backend, {})), mod)
    if _is_tvm_module_list(built, len(funcs)):
        return _from_modules(backend, funcs, list(built))
    out: dict[GlobalVar, str] = {}
    run_id = next(_RUN_IDS)
    for i, (gv, func) in enumerate(funcs):
        impl = _pick(built, i, gv.name_hint)
        # NOTE: the registry is process-wide; two offloaded modules may both have a
        # `fused_..._relu1`, so each RunCodegen gets its own suffix.
        symbol = f"{backend}.{gv.name_hint}.r{run_id}"
        registry.register_func(symbol, impl, override=True)
        external.record_codegen(symbol, backend, impl)
        out[gv] = symbol
    return out


def _is_tvm_module_list(built: Any, n_funcs: int) -> bool:
    """TVM's contract: a list of runtime modules (often empty), not one callable per function."""
    if not isinstance(built, (list, tuple)):
        return False
    if len(built) == n_funcs and built and all(callable(b) for b in built):
        return False
    return all(not callable(b) or hasattr(b, "get_function") for b in built)


def _from_modules(backend: str, funcs: list[tuple[GlobalVar, Function]],
                  modules: list[Any]) -> dict[GlobalVar, str]:
    """Each function runs as its `global_symbol`, found in the returned modules or, as TVM's
    VM does, among the globally registered functions."""
    out: dict[GlobalVar, str] = {}
    for gv, func in funcs:
        symbol = str(func.attr_dict.get("global_symbol", gv.name_hint))
        impl = _find_in_modules(modules, symbol)
        if impl is not None:
            registry.register_func(symbol, impl, override=True)
        else:
            impl = registry.get_global_func(symbol, allow_missing=True)
        if impl is None:
            raise CodegenNotFoundError(
                f"relax.ext.{backend} returned {len(modules)} module(s) and none of them, nor "
                f"the global registry, has {symbol!r}, the global_symbol of {gv.name_hint}: "
                f"register it (tvm.register_global_func({symbol!r}, kernel)) or return a "
                f"module that has it")
        external.record_codegen(symbol, backend, impl)
        out[gv] = symbol
    return out


def _find_in_modules(modules: list[Any], symbol: str) -> Callable[..., Any] | None:
    for m in modules:
        try:
            f = m.get_function(symbol)
        except (AttributeError, KeyError, ValueError, RuntimeError):
            continue
        if f is not None:
            return f
    return None


def _pick(built: Any, i: int, name: str) -> Callable[..., Any]:
    impl = built.get(name) if isinstance(built, dict) else built[i]
    if not callable(impl):
        raise TypeError(f"the codegen returned {impl!r} for {name}, not a callable")
    return impl


def _replace_calls(mod: IRModule, externs: dict[GlobalVar, str],
                   entry_functions: list[str] | None) -> IRModule:
    class _Swap(ExprMutator):
        def visit_Call(self, call: Call) -> Expr:  # noqa: N802
            call = self.generic_visit(call)
            if isinstance(call.op, GlobalVarRef) and call.op.gvar in externs:
                return Call(CALL_DPS_PACKED, (ExternFunc(externs[call.op.gvar]),
                                              Tuple(call.args)),
                            sinfo_args=(call.struct_info,), struct_info=call.struct_info)
            return call

    out = mod
    for gv, func in mod.items():
        if isinstance(func, Function) and not _is_offload_unit(func):
            if entry_functions is None or gv.name_hint in entry_functions:
                out = out.with_function(gv, _Swap().visit(func))
    return _drop_unreachable(out)


def _drop_unreachable(mod: IRModule) -> IRModule:
    """Offloaded functions (and composites only they call) leave the module."""
    used: set[GlobalVar] = set()

    class _Refs(ExprVisitor):
        def visit_GlobalVarRef(self, r: GlobalVarRef) -> None:  # noqa: N802
            used.add(r.gvar)

    for gv, func in mod.items():
        if isinstance(func, Function) and not _is_offload_unit(func):
            _Refs().visit(func)
    keep = {gv: f for gv, f in mod.items()
            if not (isinstance(f, Function) and _is_offload_unit(f)) or gv in used}
    return IRModule(keep, dict(mod.attrs), dict(mod.global_infos))
