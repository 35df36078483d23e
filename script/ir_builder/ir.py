"""`tvm.script.ir_builder.ir`: the IRModule frame of the IRBuilder.

`with I.ir_module():` collects the functions built inside it (a `T.prim_func` frame named by
`T.func_name`, a relax function) and, on leaving, makes them the builder's IRModule.
"""

from __future__ import annotations

from typing import Any

from ...ir.module import GlobalVar, IRModule
from .base import IRBuilder, IRBuilderFrame


class IRModuleFrame(IRBuilderFrame):
    """The module being built: `add(name, func)` adds one function."""

    def __init__(self) -> None:
        self.functions: dict[str, Any] = {}
        self.attrs: dict[str, Any] = {}

    def add(self, name: str, func: Any) -> None:
        if name in self.functions:
            raise ValueError(f"the module already has a function named {name!r}")
        self.functions[name] = func

    def finish(self, builder: IRBuilder) -> None:
        mod = IRModule({GlobalVar(n): f for n, f in self.functions.items()})
        mod.attrs.update(self.attrs)
        builder.result = mod


def ir_module() -> IRModuleFrame:
    """`with I.ir_module():` an IRModule of the functions built inside."""
    return IRModuleFrame()


def module_attrs(attrs: dict[str, Any]) -> None:
    """`I.module_attrs({...})` inside `I.ir_module()`: the module's attributes."""
    current_module().attrs.update(attrs)


def current_module() -> IRModuleFrame:
    for f in reversed(IRBuilder.current().frames):
        if isinstance(f, IRModuleFrame):
            return f
    raise ValueError("this call must be inside a `with I.ir_module():` frame")


def enclosing_module() -> IRModuleFrame | None:
    """The innermost open module frame, if any (a function frame adds itself to it)."""
    if not IRBuilder.is_in_scope():
        return None
    frames = [f for f in IRBuilder.current().frames if isinstance(f, IRModuleFrame)]
    return frames[-1] if frames else None


__all__ = ["IRModuleFrame", "current_module", "ir_module", "module_attrs"]
