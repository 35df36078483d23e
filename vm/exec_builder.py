"""`relax.ExecBuilder`: write VM bytecode by hand, as TVM's lowest-level tests do, and get an
Executable that `relax.VirtualMachine` runs.

    ib = relax.ExecBuilder()
    with ib.function("add2", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    ex = ib.get()

Names called that are not functions of the builder are registered (packed) functions, found
when the VM starts. `get()` checks that every register is written before it is read.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from . import bytecode as bc
from .executable import Executable, FuncEntry, VMFunction


class ExecBuilder:
    """Builds an Executable from bytecode written instruction by instruction."""

    def __init__(self) -> None:
        self._functions: dict[str, tuple[int, list[bc.Instruction]]] = {}
        self._names: list[str] = []  # the function table, by name
        self._constants: list[Any] = []
        self._current: list[bc.Instruction] | None = None

    # -- arguments ---------------------------------------------------------------------------

    def r(self, idx: int) -> bc.Arg:
        return bc.reg(idx)

    def imm(self, value: int) -> bc.Arg:
        return bc.imm(int(value))

    def c(self, idx: int) -> bc.Arg:
        return bc.const(idx)

    def f(self, name: str) -> bc.Arg:
        return bc.func(self._index(name))

    def convert_constant(self, const: Any) -> bc.Arg:
        """Add `const` to the constant pool; the argument that reads it."""
        self._constants.append(const)
        return bc.const(len(self._constants) - 1)

    def _index(self, name: str) -> int:
        if name not in self._names:
            self._names.append(name)
        return self._names.index(name)

    # -- functions and instructions ----------------------------------------------------------

    def declare_function(self, func_name: str, kind: str = "bytecode") -> None:
        self._index(func_name)

    @contextmanager
    def function(self, func_name: str, num_inputs: int = 0,
                 param_names: list[str] | None = None) -> Iterator[None]:
        if self._current is not None:
            raise RuntimeError("ExecBuilder: functions cannot be nested")
        if func_name in self._functions:
            raise RuntimeError(f"ExecBuilder: function {func_name!r} is defined twice")
        self._index(func_name)
        self._current = []
        try:
            yield
            self._functions[func_name] = (num_inputs, self._current)
        finally:
            self._current = None

    def _emit(self, ins: bc.Instruction) -> None:
        if self._current is None:
            raise RuntimeError("ExecBuilder: emit instructions inside `with ib.function(...)`")
        self._current.append(ins)

    def emit_call(self, name: str, args: list[bc.Arg] | None = None,
                  dst: bc.Arg | None = None) -> None:
        self._emit(bc.Call(None if dst is None else dst.value, self._index(name),
                           tuple(args or ())))

    def emit_ret(self, result: bc.Arg) -> None:
        self._emit(bc.Ret(result.value))

    def emit_goto(self, pc_offset: int) -> None:
        self._emit(bc.Goto(pc_offset))

    def emit_if(self, cond: bc.Arg, false_offset: int) -> None:
        self._emit(bc.If(cond.value, false_offset))

    # -- the executable ----------------------------------------------------------------------

    def get(self) -> Executable:
        """The executable; every register must be written before it is read."""
        functions = {}
        for name, (num_inputs, code) in self._functions.items():
            num_regs = _check(name, num_inputs, code)
            params = tuple(f"p{i}" for i in range(num_inputs))
            functions[name] = VMFunction(name, params, tuple(("any",) for _ in params),
                                         num_regs, tuple(code))
        table = [FuncEntry("vm" if n in self._functions else "packed", n) for n in self._names]
        return Executable(table, functions, list(self._constants))


def _check(name: str, num_inputs: int, code: list[bc.Instruction]) -> int:
    """The number of registers `code` uses; a register read before any write is an error
    (in program order, which is how TVM's checker reads it too)."""
    written = set(range(num_inputs))
    top = num_inputs
    for pc, ins in enumerate(code):
        reads = [a.value for a in ins.args if a.kind == bc.ArgKind.REGISTER] \
            if isinstance(ins, bc.Call) else [ins.result] if isinstance(ins, bc.Ret) else \
            [ins.cond] if isinstance(ins, bc.If) else []
        for r in reads:
            if r not in written:
                raise RuntimeError(f"ExecBuilder: function {name!r} reads register {r} at "
                                   f"instruction {pc} before writing it")
            top = max(top, r + 1)
        if isinstance(ins, bc.Call) and ins.dst is not None:
            written.add(ins.dst)
            top = max(top, ins.dst + 1)
    return top
