"""Random variables of a schedule: handles to blocks, loops and sampled integers.

`BlockRV` names a block (block names are unique in a prim_func), `LoopRV` a loop by its loop
variable (which no other loop binds). As in TVM, `SBlockRV()` / `LoopRV()` with no arguments
make handles that are not yet bound: a hand-built `Instruction` uses them as placeholders.
"""

from __future__ import annotations

from typing import Any


class _RV:
    def same_as(self, other: Any) -> bool:
        return self is other


class BlockRV(_RV):
    """A handle to a block (by name)."""

    def __init__(self, name: str | None = None, func_name: str | None = None) -> None:
        self.name, self.func_name = name, func_name

    def __repr__(self) -> str:
        return f"BlockRV({self.name!r})"


class LoopRV(_RV):
    """A handle to a loop (by its loop variable)."""

    def __init__(self, var: Any = None, func_name: str | None = None) -> None:
        self.var, self.func_name = var, func_name

    def __repr__(self) -> str:
        return f"LoopRV({getattr(self.var, 'name', None)})"


class ExprRV(_RV):
    """A sampled integer (`sample_perfect_tile`, `sample_categorical`): usable wherever a
    factor or an int is, printed in the trace by its name (`v4`) with the decision beside."""

    def __init__(self, value: int) -> None:
        self.value = int(value)

    def __int__(self) -> int:
        return self.value

    __index__ = __int__

    # a sample is a known integer here: arithmetic on it (`t0 * t1` in an index map) is too
    def __add__(self, other: Any) -> int:
        return self.value + int(other)

    def __mul__(self, other: Any) -> int:
        return self.value * int(other)

    def __sub__(self, other: Any) -> int:
        return self.value - int(other)

    def __rsub__(self, other: Any) -> int:
        return int(other) - self.value

    def __floordiv__(self, other: Any) -> int:
        return self.value // int(other)

    def __mod__(self, other: Any) -> int:
        return self.value % int(other)

    __radd__, __rmul__ = __add__, __mul__

    def __repr__(self) -> str:
        return f"ExprRV({self.value})"


def is_rv(value: Any) -> bool:
    """A handle of a trace: a block/loop/sample handle, or a TIR variable standing for a
    sample (TVM's ExprRV is a variable)."""
    from ..expr import Var

    return isinstance(value, (_RV, Var))
