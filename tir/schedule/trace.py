"""The trace of a schedule: every primitive call, printable as Python and replayable.

`print(sch.trace)` gives TVM's form

    # from tvm import s_tir
    def apply_trace(sch: s_tir.Schedule) -> None:
      b0 = sch.get_sblock(name="C", func_name="main")
      l1, l2, l3 = sch.get_loops(block=b0)

and `trace.apply_to_schedule(sch)` replays the calls on another schedule (of the same
program), mapping each recorded block/loop handle to the one the replay produces. Sampling
instructions carry their `decision`, so a replay makes the same choices.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class BlockRV:
    """A handle to a block (by name, as block names are unique in a prim_func)."""

    def __init__(self, name: str, func_name: str) -> None:
        self.name, self.func_name = name, func_name

    def __repr__(self) -> str:
        return f"BlockRV({self.name!r})"


class LoopRV:
    """A handle to a loop (by its loop variable, which no other loop binds)."""

    def __init__(self, var: Any, func_name: str) -> None:
        self.var, self.func_name = var, func_name

    def __repr__(self) -> str:
        return f"LoopRV({self.var.name})"


class ExprRV:
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


_PREFIX = {BlockRV: "b", LoopRV: "l", ExprRV: "v"}


@dataclass
class Instruction:
    name: str
    kwargs: dict[str, Any]
    outputs: Any  # None, one RV or a list of RVs


def _flat(outputs: Any) -> list[Any]:
    if outputs is None:
        return []
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


class Trace:
    """The instructions applied so far, in order."""

    def __init__(self) -> None:
        self.insts: list[Instruction] = []

    def append(self, name: str, kwargs: dict[str, Any], outputs: Any) -> None:
        self.insts.append(Instruction(name, kwargs, outputs))

    def _names(self) -> dict[int, str]:
        names: dict[int, str] = {}
        for inst in self.insts:
            for rv in _flat(inst.outputs):
                names.setdefault(id(rv), f"{_PREFIX[type(rv)]}{len(names)}")
        return names

    def _arg(self, value: Any, names: dict[int, str]) -> str:
        if isinstance(value, (BlockRV, LoopRV, ExprRV)):
            return names.get(id(value), repr(value))
        if isinstance(value, str):
            return json.dumps(value)  # TVM prints double quotes
        if hasattr(value, "trace_text"):  # an IndexMap prints as the lambda it is
            return value.trace_text()
        if isinstance(value, tuple):
            inner = ", ".join(self._arg(v, names) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, list):
            inner = ", ".join(self._arg(v, names) for v in value)
            return f"[{inner}]"
        return repr(value)

    def as_python(self) -> list[str]:
        names = self._names()
        lines = []
        for inst in self.insts:
            args = ", ".join(self._arg(x, names) for x in inst.kwargs.get("*", ()))
            named = ", ".join(f"{k}={self._arg(v, names)}" for k, v in inst.kwargs.items()
                              if k != "*")
            args = ", ".join(a for a in (args, named) if a)
            call = f"sch.{inst.name}({args})"
            outs = _flat(inst.outputs)
            if outs:
                lhs = ", ".join(names[id(o)] for o in outs)
                if isinstance(inst.outputs, (list, tuple)) and len(outs) == 1:
                    lhs += ","  # one element of a list: unpack it, as TVM prints it
                call = lhs + " = " + call
            lines.append(call)
        return lines

    def show(self, style: str | None = None, black_format: bool | None = None) -> None:
        """Print the trace as Python, highlighted as TVMScript is (`style="plain"` for none)."""
        from ...script.highlight import cprint  # the printer layer sits above tir

        cprint(str(self), style)

    def __str__(self) -> str:
        body = self.as_python() or ["pass"]
        return "\n".join(["# from tvm import s_tir",
                          "def apply_trace(sch: s_tir.Schedule) -> None:"]
                         + ["  " + line for line in body])

    __repr__ = __str__

    def apply_to_schedule(self, sch: Any, remove_postproc: bool = False) -> None:
        """Replays every instruction on `sch`, mapping recorded handles to the replay's."""
        rvs: dict[int, Any] = {}

        def arg(v: Any) -> Any:
            if isinstance(v, (BlockRV, LoopRV, ExprRV)):
                return rvs.get(id(v), v)
            if isinstance(v, (list, tuple)):
                return type(v)(arg(x) for x in v)
            return v

        for inst in self.insts:
            positional = [arg(x) for x in inst.kwargs.get("*", ())]
            named = {k: arg(v) for k, v in inst.kwargs.items() if k != "*"}
            out = getattr(sch, inst.name)(*positional, **named)
            for old, new in zip(_flat(inst.outputs), _flat(out)):
                rvs[id(old)] = new
