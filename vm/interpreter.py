"""The reference bytecode interpreter: a plain loop over Call / Ret / Goto / If.

It is slow (~µs per instruction) and simple on purpose: the fast paths are tested against it.
`resolve_func_table` turns the executable's function table into Python callables that every
execution path shares: builtins, a loaded file's BYOC functions (`ex.externals`), registered
functions, checked kernel calls, VM functions. It runs once per VM, so calls pay no lookup.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .builtins import make_builtins
from .bytecode import ArgKind, Call, Goto, If, Ret
from .device import Device
from .executable import Executable, VMFunction
from .external import unwrap
from .kernel_module import check_kernel_args
from .kernels import KernelLibrary
from .registry import get_global_func

Func = Callable[..., Any]


def kernel_caller(lib: KernelLibrary, name: str) -> Func:
    """Call kernel `name` with register values, checked against its signature first."""
    sig, fn, where = lib.signatures[name], lib.get_function(name), f"kernel {name!r}"

    def call_kernel(*args: Any) -> None:
        fn(*check_kernel_args(sig, args, where, with_shape_vars=True))

    call_kernel.library = lib  # type: ignore[attr-defined]  # NOTE: the JIT code lives there
    return call_kernel


def packed_caller(name: str, builtins: dict[str, Func]) -> Func:
    """A builtin, or the registered function; looked up again at call time if not there yet."""
    if name in builtins:
        return builtins[name]
    found = get_global_func(name, allow_missing=True)
    if found is not None:
        return unwrap(found)

    def late_bound(*args: Any) -> Any:
        return get_global_func(name)(*args)  # raises a clear error if still missing

    return late_bound


def resolve_func_table(ex: Executable, device: Device, vm_call: Callable[[str], Func]
                       ) -> list[Func]:
    """One callable per function-table entry; `vm_call(name)` gives a VM function's callable."""
    builtins = make_builtins(device)
    table: list[Func] = []
    for e in ex.func_table:
        if e.kind == "kernel":
            table.append(kernel_caller(ex.kernels.load(), e.name))
        elif e.kind == "packed" and e.name in ex.externals:
            table.append(unwrap(ex.externals[e.name]))  # local to the executable
        elif e.kind == "packed":
            table.append(packed_caller(e.name, builtins))
        else:
            table.append(vm_call(e.name))
    return table


def run(fn: VMFunction, args: Sequence[Any], table: list[Func], constants: list[Any]) -> Any:
    """Interpret `fn` on `args` (already converted to NDArrays) and return its result."""
    regs: list[Any] = [None] * fn.num_regs
    regs[: len(args)] = args
    code, pc = fn.instructions, 0
    while True:
        ins = code[pc]
        if isinstance(ins, Call):
            vals = [_value(a.kind, a.value, regs, table, constants) for a in ins.args]
            result = table[ins.func](*vals)
            if ins.dst is not None:
                regs[ins.dst] = result
            pc += 1
        elif isinstance(ins, Ret):
            return regs[ins.result]
        elif isinstance(ins, Goto):
            pc += ins.offset
        elif isinstance(ins, If):
            pc += 1 if regs[ins.cond] else ins.false_offset
        else:
            raise RuntimeError(f"unknown instruction {ins!r}")


def _value(kind: ArgKind, v: int, regs: list[Any], table: list[Func], consts: list[Any]
           ) -> Any:
    if kind == ArgKind.REGISTER:
        return regs[v]
    if kind == ArgKind.IMMEDIATE:
        return v
    if kind == ArgKind.CONST:
        return consts[v]
    return table[v]
