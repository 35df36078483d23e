"""tvmlite: Apache TVM's Unity stack as users meet it in TVMScript, in pure Python.

`import tvmlite as tvm` gives the facade TVM users know: devices, `tvm.nd`, `tvm.runtime`,
the function registry, `tvm.build` (prim_funcs) and `tvm.compile` (whole modules).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import nd, runtime
from .vm.datatype import DataType  # noqa: F401 (tvm.DataType, as TVM exports it)
from .vm.device import Device, cpu, cuda, device
from .runtime import device_from_target
from .vm.registry import get_global_func, list_global_func_names, register_func

# NOTE: the compiler (parser, IR, passes, codegen) is imported on first use, so a process that
# only loads and runs an exported executable imports the runtime (vm/) alone.
_LAZY_MODULES = ("arith", "contrib", "error", "ir", "meta_schedule", "relax", "rpc", "s_tir",
                 "script", "support", "sym", "target", "te", "testing", "tir", "tirx", "topi",
                 "transform")


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name == "dlight":  # TVM before 0.27: `from tvm import dlight as dl`
        from .transforms import dlight

        return dlight
    if name == "IRModule":
        from .ir.module import IRModule

        return IRModule
    raise AttributeError(f"module 'tvmlite' has no attribute {name!r}")

__version__ = "0.1.0"

register_global_func = register_func

__all__ = [
    "Device", "IRModule", "build", "compile", "cpu", "cuda", "device", "get_global_func",
    "device_from_target",
    "ir", "list_global_func_names", "meta_schedule", "nd", "register_func",
    "register_global_func", "relax", "runtime", "s_tir", "script", "target", "te", "tir", "topi",
    "transform",
]


def build(func_or_mod: Any, target: Any = "llvm", **_: Any) -> Any:
    """Compile prim_funcs to a callable kernel module: `f = tvm.build(func); f(a, b, c)`."""
    from .transforms.build import build_kernels

    return build_kernels(func_or_mod, target)


def compile(mod: Any, target: Any = "llvm", **kwargs: Any) -> Any:  # noqa: A001 (TVM's name)
    """TVM 0.27's entry point: a module with graph functions -> Executable, else kernels."""
    from . import relax
    from .ir.expr import Function
    from .ir.module import IRModule

    if isinstance(mod, IRModule) and any(isinstance(f, Function) for f in mod.functions.values()):
        return relax.build(mod, target, **kwargs)
    return build(mod, target)
