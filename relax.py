"""`tvm.relax` as users meet it: build, vm.build, VirtualMachine, transform, Executable."""

from __future__ import annotations

import sys
import types
from typing import Any

from .transforms.bind_params import BindParams
from .transforms.build import build_executable
from .vm.vm import VirtualMachine

__all__ = ["build", "vm", "VirtualMachine", "transform", "BindParams"]


def build(mod: Any, target: Any = "llvm", params: dict[str, Any] | None = None,
          exec_mode: str = "bytecode", **_: Any) -> Any:
    """Compile an IRModule to a VM Executable (also reachable as `relax.vm.build`)."""
    return build_executable(mod, target, params)


def _namespace(name: str, **members: Any) -> types.ModuleType:
    """A submodule-like namespace (`relax.vm`, `relax.transform`) that `import` also finds."""
    module = types.ModuleType(f"{__name__}.{name}")
    module.__dict__.update(members)
    sys.modules[module.__name__] = module
    return module


vm = _namespace("vm", build=build, VirtualMachine=VirtualMachine)
transform = _namespace("transform", BindParams=BindParams)
