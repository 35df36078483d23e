"""Collects the function table, constants and bytecode functions of an Executable being built."""

from __future__ import annotations

from typing import Any

from ..ir.expr import Function
from ..ir.struct_info import TensorStructInfo
from ..tir.expr import IntImm
from ..vm import bytecode as bc


class ExecBuilder:
    def __init__(self, kernel_signatures: dict[str, Any]) -> None:
        self.kernel_signatures = kernel_signatures
        self.func_table: list[tuple[str, str]] = []  # (kind, name)
        self.constants: list[Any] = []
        self.functions: dict[str, Any] = {}

    def func_index(self, kind: str, name: str) -> int:
        key = (kind, name)
        if key not in self.func_table:
            self.func_table.append(key)
        return self.func_table.index(key)

    def const(self, value: Any) -> bc.Arg:
        """A constant-pool argument; plain values (str, int, tuple) are shared, tensors not."""
        if isinstance(value, (str, int, float, tuple)):
            for i, c in enumerate(self.constants):
                if type(c) is type(value) and c == value:
                    return bc.const(i)
        self.constants.append(value)
        return bc.const(len(self.constants) - 1)

    def kernel_signature(self, name: str) -> Any:
        if name not in self.kernel_signatures:
            raise ValueError(f"call_tir names {name!r}, which is not a prim_func of the module")
        return self.kernel_signatures[name]

    def add_function(self, name: str, func: Function, code: list[bc.Instruction],
                     num_regs: int) -> None:
        self.func_index("vm", name)
        self.functions[name] = (func, code, num_regs)

    def param_descriptions(self, func: Function) -> tuple[Any, ...]:
        return tuple(_describe(p.struct_info) for p in func.params)


def _describe(sinfo: Any) -> tuple[Any, ...]:
    """A plain (vm-importable) description of a parameter: ("tensor", shape, dtype) or ("any",)."""
    if isinstance(sinfo, TensorStructInfo):
        shape = None if sinfo.shape is None else tuple(
            d.value if isinstance(d, IntImm) else getattr(d, "name", str(d)) for d in sinfo.shape)
        return ("tensor", shape, sinfo.dtype)
    return ("any",)
