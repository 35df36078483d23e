"""The trace of a schedule: every primitive call, printable as Python or JSON, replayable.

`print(sch.trace)` gives TVM's form

    # from tvm import s_tir
    def apply_trace(sch: s_tir.Schedule) -> None:
      b0 = sch.get_sblock(name="C", func_name="main")
      l1, l2, l3 = sch.get_loops(block=b0)

A trace is a list of `Instruction`s (instruction.py) and the decisions of its sampling
instructions. `apply_to_schedule` replays it on another schedule of the same program, mapping
each recorded handle to the one the replay makes; `as_json` / `apply_json_to_schedule` do the
same through plain lists, with handles named as in the printed form.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .instruction import Instruction, InstructionKind
from .rv import BlockRV, ExprRV, LoopRV, is_rv

__all__ = ["BlockRV", "ExprRV", "Instruction", "InstructionKind", "LoopRV", "Trace"]


def _rv_prefix(rv: Any) -> str:
    return "b" if isinstance(rv, BlockRV) else "l" if isinstance(rv, LoopRV) else "v"


def _number(value: float) -> str:
    text = "%.17g" % value  # TVM prints doubles to 17 significant digits
    return text


def format_value(value: Any, names: dict[int, str] | None) -> str:
    """One argument as the printed trace writes it; handles by name (`_` outside a trace)."""
    if names is not None and id(value) in names:
        return names[id(value)]
    if is_rv(value):
        return "_"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # TVM prints double quotes
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if hasattr(value, "trace_text"):  # an IndexMap prints as the lambda it is
        return value.trace_text()
    if isinstance(value, tuple):
        inner = ", ".join(format_value(v, names) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v, names) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{format_value(k, names)}: {format_value(v, names)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    plain = to_plain(value)
    return repr(value) if plain is value else format_value(plain, names)


def to_plain(value: Any) -> Any:
    """TIR constants as the Python values a schedule method takes (T.bool(True) -> True)."""
    from ..expr import FloatImm, IntImm, StringImm

    if isinstance(value, IntImm):
        return bool(value.value) if value.dtype == "bool" else int(value.value)
    if isinstance(value, FloatImm):
        return float(value.value)
    if isinstance(value, StringImm):
        return value.value
    if isinstance(value, (list, tuple)):
        return type(value)(to_plain(v) for v in value)
    return value


def python_line(inst: Instruction, names: dict[int, str] | None, decision: Any) -> str:
    """The instruction as one line of the printed trace."""
    kind = inst.kind
    positional, named = kind.join_kwargs(inst.inputs, inst.attrs)
    optional = {p.name for p in kind.params if p.optional}
    args = [format_value(v, names) for v in positional]
    args += [f"{k}={format_value(v, names)}" for k, v in named.items()
             if not (k in optional and not v)]
    if kind.has_decision and decision is not None:
        args.append(f"decision={format_value(to_plain(decision), names)}")
    call = f"sch.{kind.method}({', '.join(args)})"
    if not inst.outputs:
        return call
    lhs = ", ".join("_" if names is None or o is None else names[id(o)] for o in inst.outputs)
    if kind.returns_list and len(inst.outputs) == 1:
        lhs += ","  # one element of a list: unpack it, as TVM prints it
    return f"{lhs} = {call}"


class Trace:
    """The instructions applied so far, in order, and the sampling decisions."""

    def __init__(self, insts: list[Instruction] | None = None,
                 decisions: dict[Instruction, Any] | None = None) -> None:
        self.insts: list[Instruction] = list(insts or [])
        self._decisions: dict[int, Any] = {}
        for inst, decision in (decisions or {}).items():
            self._decisions[id(inst)] = decision

    # -- building --------------------------------------------------------------------------

    @property
    def decisions(self) -> dict[Instruction, Any]:
        """The decision of each sampling instruction (TVM's `trace.decisions`)."""
        return {inst: self._decisions[id(inst)] for inst in self.insts
                if id(inst) in self._decisions}

    def get_decision(self, inst: Instruction) -> Any:
        return self._decisions.get(id(inst))

    def append(self, inst: Instruction, decision: Any = None) -> None:
        if not isinstance(inst, Instruction):
            raise TypeError(f"Trace.append takes an Instruction, got {type(inst).__name__}")
        self.insts.append(inst)
        if decision is not None:
            self._decisions[id(inst)] = decision

    def pop(self) -> Instruction | None:
        """Removes and returns the last instruction (None on an empty trace)."""
        if not self.insts:
            return None
        inst = self.insts.pop()
        self._decisions.pop(id(inst), None)
        return inst

    def record(self, method: str, kwargs: dict[str, Any], outputs: Any) -> Instruction:
        """Appends the call `sch.<method>(**kwargs)` that returned `outputs`."""
        kind = InstructionKind.by_method(method)
        kwargs = dict(kwargs)
        decision = kwargs.pop("decision", None)
        inputs, attrs = kind.split_kwargs(kwargs)
        outs = [] if outputs is None else (
            list(outputs) if isinstance(outputs, (list, tuple)) else [outputs])
        inst = Instruction(kind, inputs, attrs, outs)
        self.append(inst, decision)
        return inst

    # -- derived traces ----------------------------------------------------------------------

    def _kept(self, remove_postproc: bool) -> list[Instruction]:
        if not remove_postproc:
            return list(self.insts)
        out = []
        for inst in self.insts:
            if inst.kind.name == "EnterPostproc":
                break
            out.append(inst)
        return out

    def _sub(self, insts: list[Instruction]) -> Trace:
        return Trace(insts, {i: self._decisions[id(i)] for i in insts
                             if id(i) in self._decisions})

    def with_decision(self, inst: Instruction, decision: Any, remove_postproc: bool) -> Trace:
        """A copy whose `inst` takes `decision`."""
        trace = self._sub(self._kept(remove_postproc))
        if not any(i is inst for i in trace.insts):
            raise ValueError(f"with_decision: {inst} is not in this trace")
        trace._decisions[id(inst)] = decision
        return trace

    def simplified(self, remove_postproc: bool) -> Trace:
        """A copy without the pure instructions whose outputs nothing uses (and, with
        `remove_postproc`, without the postprocessing part)."""
        used: set[int] = set()
        kept: list[Instruction] = []
        for inst in reversed(self._kept(remove_postproc)):
            if inst.kind.is_pure and not any(id(o) in used for o in inst.outputs):
                continue
            kept.append(inst)
            used.update(id(v) for v in _leaves(inst.inputs))
        return self._sub(kept[::-1])

    # -- printing ----------------------------------------------------------------------------

    def _names(self, insts: list[Instruction]) -> dict[int, str]:
        names: dict[int, str] = {}
        count = 0
        for inst in insts:
            for rv in inst.outputs:
                if rv is not None and id(rv) not in names:  # None: an output that is no handle
                    names[id(rv)] = f"{_rv_prefix(rv)}{count}"
                count += 1
        return names

    def as_python(self, remove_postproc: bool = False) -> list[str]:
        insts = self._kept(remove_postproc)
        names = self._names(insts)
        return [python_line(i, names, self._decisions.get(id(i))) for i in insts]

    def as_json(self, remove_postproc: bool = False) -> list[Any]:
        """`[[ [kind, inputs, attrs, outputs], ...], [[index, decision], ...]]`, handles by
        their printed names and string inputs quoted (so a string is never taken for one)."""
        insts = self._kept(remove_postproc)
        names = self._names(insts)
        rows = [[inst.kind.name, [_input_json(x, names) for x in inst.inputs],
                 list(inst.attrs), [names.get(id(o), "_") if o is not None else "_"
                                    for o in inst.outputs]] for inst in insts]
        decisions = [[index, self._decisions[id(inst)]] for index, inst in enumerate(insts)
                     if id(inst) in self._decisions]
        return [rows, decisions]

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

    # -- replay ------------------------------------------------------------------------------

    def apply_to_schedule(self, sch: Any, remove_postproc: bool = False,
                          decision_provider: Callable[..., Any] | None = None) -> None:
        """Replays every instruction on `sch`, mapping recorded handles to the replay's.
        `decision_provider(inst, inputs, attrs, decision)` may change a sampling decision."""
        rvs: dict[int, Any] = {}
        for inst in self._kept(remove_postproc):
            inputs = [_translate(x, rvs) for x in inst.inputs]
            decision = self._decisions.get(id(inst))
            if decision_provider is not None:
                decision = decision_provider(inst, inputs, inst.attrs, decision)
            outs = apply_instruction(sch, inst.kind, inputs, inst.attrs, decision)
            for old, new in zip(inst.outputs, outs):
                rvs[id(old)] = new

    @staticmethod
    def apply_json_to_schedule(json_obj: Any, sch: Any) -> None:
        """Replays a trace given as `as_json()` gave it on `sch`."""
        if not (isinstance(json_obj, (list, tuple)) and len(json_obj) == 2):
            raise ValueError("a JSON trace is [instructions, decisions]")
        rows, decision_rows = json_obj
        decisions = {int(index): decision for index, decision in decision_rows}
        rvs: dict[str, Any] = {}
        for index, row in enumerate(rows):
            kind_name, inputs, attrs, outputs = row
            kind = InstructionKind.get(str(kind_name))
            args = [_input_from_json(x, rvs) for x in inputs]
            outs = apply_instruction(sch, kind, args, list(attrs), decisions.get(index))
            if len(outs) != len(outputs):
                raise ValueError(f"{kind_name}: the trace names {len(outputs)} outputs, the "
                                 f"replay made {len(outs)}")
            rvs.update((name, out) for name, out in zip(outputs, outs) if name != "_")


def apply_instruction(sch: Any, kind: InstructionKind, inputs: list[Any], attrs: list[Any],
                      decision: Any) -> list[Any]:
    """Calls the instruction's schedule method; returns its outputs as a list."""
    positional, named = kind.join_kwargs(to_plain(list(inputs)), to_plain(list(attrs)))
    if kind.has_decision and decision is not None:
        named["decision"] = to_plain(decision)
    out = getattr(sch, kind.method)(*positional, **named)
    if out is None:
        return []
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _leaves(values: Any) -> list[Any]:
    out = []
    for v in values:
        out.extend(_leaves(v) if isinstance(v, (list, tuple)) else [v])
    return out


def _translate(value: Any, rvs: dict[int, Any]) -> Any:
    if id(value) in rvs:
        return rvs[id(value)]
    if isinstance(value, (list, tuple)):
        return type(value)(_translate(v, rvs) for v in value)
    return value


def _input_json(value: Any, names: dict[int, str]) -> Any:
    if id(value) in names:
        return names[id(value)]
    if is_rv(value):
        raise ValueError(f"the trace uses a handle no instruction made: {value!r}")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return [_input_json(v, names) for v in value]
    return value


def _input_from_json(value: Any, rvs: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if value.startswith('"'):
            return json.loads(value)
        if value not in rvs:
            raise ValueError(f"the JSON trace uses {value!r} before any instruction made it")
        return rvs[value]
    if isinstance(value, (list, tuple)):
        return [_input_from_json(v, rvs) for v in value]
    return value
