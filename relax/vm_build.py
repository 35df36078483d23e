"""`tvm.relax.build` (TVM's `relax/vm_build.py`): an IRModule to a VM Executable."""

from __future__ import annotations

from typing import Any

from ..transforms.build import build_executable


def build(mod: Any, target: Any = "llvm", params: dict[str, Any] | None = None,
          relax_pipeline: Any = "default", exec_mode: str = "bytecode", **_: Any) -> Any:
    """Compile an IRModule to a VM Executable (also reachable as `relax.vm.build`)."""
    return build_executable(mod, target, params, relax_pipeline)
