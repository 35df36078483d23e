"""The closure path: a branch-free VMFunction as a list of prebuilt Python steps.

Used where the native fast path cannot go: registered Python functions between kernels,
symbolic shapes. Each instruction becomes one closure with its constant arguments already in
place, so running a function is `for step in steps: step(regs)` -- no decoding, no dispatch.
Kernel calls keep a one-entry cache of the argument signatures they last checked, so a repeated
call with same-shaped tensors skips the full signature check (never the check itself).
"""

from __future__ import annotations

from typing import Any, Callable

from .bytecode import ArgKind, Call, Ret
from .executable import Executable, VMFunction
from .kernel_module import check_kernel_args
from .kernels import KernelLibrary
from .ndarray import NDArray

Func = Callable[..., Any]
Step = Callable[[list[Any]], None]


def cached_kernel_caller(lib: KernelLibrary, name: str) -> Func:
    """A checked kernel call that re-checks only when argument signatures change."""
    sig, fn, where = lib.signatures[name], lib.get_function(name), f"kernel {name!r}"
    last: list[Any] = [None]

    def call_kernel(*args: Any) -> None:
        key = tuple(a._sig if type(a) is NDArray else a for a in args)
        if key != last[0]:
            native = check_kernel_args(sig, args, where, with_shape_vars=True)
            last[0] = key
            fn(*native)
        else:
            fn(*[a._ptr if type(a) is NDArray else a for a in args])

    call_kernel.library = lib  # type: ignore[attr-defined]  # NOTE: the JIT code lives there
    return call_kernel


def _step(f: Func, dst: int | None, fixed: list[Any], slots: list[tuple[int, int]]) -> Step:
    if not slots:
        def step_const(regs: list[Any]) -> None:
            r = f(*fixed)
            if dst is not None:
                regs[dst] = r
        return step_const
    if len(slots) == len(fixed):  # registers only: the common case
        idx = [r for _, r in slots]

        def step_regs(regs: list[Any]) -> None:
            r = f(*[regs[i] for i in idx])
            if dst is not None:
                regs[dst] = r
        return step_regs

    def step(regs: list[Any]) -> None:
        vals = fixed.copy()
        for pos, r in slots:
            vals[pos] = regs[r]
        r = f(*vals)
        if dst is not None:
            regs[dst] = r
    return step


def _fixed_value(kind: ArgKind, v: int, ex: Executable, table: list[Func]) -> Any:
    if kind == ArgKind.IMMEDIATE:
        return v
    return ex.constants[v] if kind == ArgKind.CONST else table[v]


def compile_closures(ex: Executable, fn: VMFunction, table: list[Func]
                     ) -> Callable[[tuple[Any, ...]], Any] | None:
    """`run(args)` for a branch-free `fn` (args already checked for count and converted)."""
    code = fn.instructions
    if not (isinstance(code[-1], Ret) and all(isinstance(i, Call) for i in code[:-1])):
        return None  # control flow: the interpreter handles it
    funcs = list(table)
    for i, e in enumerate(ex.func_table):
        if e.kind == "kernel":
            funcs[i] = cached_kernel_caller(ex.kernels.load(), e.name)
    steps: list[Step] = []
    for ins in code[:-1]:
        assert isinstance(ins, Call)
        fixed: list[Any] = []
        slots: list[tuple[int, int]] = []
        for pos, a in enumerate(ins.args):
            if a.kind == ArgKind.REGISTER:
                slots.append((pos, a.value))
                fixed.append(None)
            else:
                fixed.append(_fixed_value(a.kind, a.value, ex, table))
        steps.append(_step(funcs[ins.func], ins.dst, fixed, slots))
    num_regs, n, result = fn.num_regs, len(fn.params), code[-1].result

    def run(args: tuple[Any, ...]) -> Any:
        regs: list[Any] = [None] * num_regs
        regs[:n] = args
        for s in steps:
            s(regs)
        return regs[result]

    return run
