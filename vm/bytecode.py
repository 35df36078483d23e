"""VM bytecode: four instructions (Call, Ret, Goto, If) over a register file.

Everything else (allocation, argument checks, shape arithmetic, kernels, Python functions) is a
`Call` of an entry in the executable's function table. Arguments say where their value comes
from: a register, an immediate int, a constant-pool index, or a function-table index.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ArgKind(enum.IntEnum):
    REGISTER = 0
    IMMEDIATE = 1
    CONST = 2
    FUNC = 3


_PREFIX = {ArgKind.REGISTER: "%", ArgKind.IMMEDIATE: "i", ArgKind.CONST: "c", ArgKind.FUNC: "f"}


@dataclass(frozen=True, slots=True)
class Arg:
    kind: ArgKind
    value: int

    def __str__(self) -> str:
        return f"{_PREFIX[self.kind]}{self.value}"


def reg(i: int) -> Arg:
    return Arg(ArgKind.REGISTER, i)


def imm(v: int) -> Arg:
    return Arg(ArgKind.IMMEDIATE, v)


def const(i: int) -> Arg:
    return Arg(ArgKind.CONST, i)


def func(i: int) -> Arg:
    return Arg(ArgKind.FUNC, i)


class Instruction:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Call(Instruction):
    """`dst = func_table[func](*args)`; `dst` is None when the result is dropped."""

    dst: int | None
    func: int
    args: tuple[Arg, ...]


@dataclass(frozen=True, slots=True)
class Ret(Instruction):
    result: int  # register


@dataclass(frozen=True, slots=True)
class Goto(Instruction):
    offset: int  # relative to this instruction


@dataclass(frozen=True, slots=True)
class If(Instruction):
    """Fall through when register `cond` is true, else jump by `false_offset`."""

    cond: int
    false_offset: int
