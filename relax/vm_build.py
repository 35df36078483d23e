"""`tvm.relax.build` (TVM's `relax/vm_build.py`): an IRModule to a VM Executable."""

from __future__ import annotations

from typing import Any

from ..transforms.build import build_executable


def build(mod: Any, target: Any = "llvm", params: dict[str, Any] | None = None,
          relax_pipeline: Any = "default", exec_mode: str = "bytecode", **_: Any) -> Any:
    """Compile an IRModule to a VM Executable (also reachable as `relax.vm.build`)."""
    return build_executable(mod, target, params, relax_pipeline)


def _vmcodegen(builder: Any, mod: Any, exec_mode: str = "bytecode") -> Any:
    """TVM's first half of `relax.build`, for modules already lowered by hand (explicit
    allocations and builtins): the graph functions are kept for `_vmlink`, which compiles them
    with the kernels; the prim_funcs are returned. Both of TVM's `exec_mode`s give bytecode."""
    from ..ir.expr import Function
    from ..ir.module import IRModule

    builder._codegen_module = mod  # NOTE: lowered with the kernels' signatures in _vmlink
    return IRModule({gv: f for gv, f in mod.items() if not isinstance(f, Function)})


def _vmlink(builder: Any, target: Any, tir_mod: Any = None, ext_libs: Any = None,
            params: dict[str, Any] | None = None, system_lib: Any = None) -> Any:
    """TVM's second half of `relax.build`: the Executable of what `_vmcodegen` was given."""
    mod = getattr(builder, "_codegen_module", None)
    if mod is None:
        raise ValueError("relax.vm_build._vmlink links what _vmcodegen put in the builder; "
                         "call _vmcodegen(builder, mod) first")
    return build_executable(mod, target, params, relax_pipeline=None)
