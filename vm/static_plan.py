"""Static-region analysis for the native fast path.

A VMFunction is *static* when its bytecode is straight-line and uses only: entry checks that pin
every parameter to one static shape and dtype, `alloc_tensor` with constant shapes, kernel calls
whose arguments match the kernel signatures at those shapes, `make_tuple`, and `ret`. Then the
whole function is known before any call: which memory each kernel touches, which allocations
are returned (outputs: fresh per call) and which are intermediates (planned into an arena).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .bytecode import Arg, ArgKind, Call, Ret
from .executable import Executable, VMFunction
from .kernel_signature import KernelSignature
from .ndarray import NDArray

ARENA_ALIGN = 64


class NotStatic(Exception):
    """The function is outside what the native fast path compiles."""


@dataclass
class Buffer:
    shape: tuple[int, ...]
    dtype: str
    kind: str  # "param" | "out" | "arena" | "const"
    index: int = 0  # param index, output index, arena offset, or constant data address
    first: int = 0  # instruction that defines it / last that uses it (arena planning)
    last: int = 0

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass
class KernelStep:
    name: str
    sig: KernelSignature
    operands: list[Any]  # Buffer | int | float, in ABI order (shape vars appended)


@dataclass
class StaticPlan:
    params: list[Buffer]
    steps: list[KernelStep]
    outputs: list[Buffer]
    ret: Any  # Buffer or tuple of Buffers
    arena_bytes: int = 0
    buffers: list[Buffer] = field(default_factory=list)


def analyze(ex: Executable, fn: VMFunction) -> StaticPlan:
    """The static plan of `fn`, or NotStatic."""
    n = len(fn.params)
    info: list[dict[str, Any]] = [{"dims": {}} for _ in range(n)]
    # NOTE: parameter buffers get their shape once their checks are complete (see _reg)
    params = [Buffer((), "", "param", i) for i in range(n)]
    regs: dict[int, Any] = dict(enumerate(params))
    steps: list[KernelStep] = []
    allocs: list[Buffer] = []
    for pc, ins in enumerate(fn.instructions):
        if isinstance(ins, Ret):
            return _finish(params, info, regs, steps, allocs, ins.result)
        if not isinstance(ins, Call):
            raise NotStatic("control flow")
        entry = ex.func_table[ins.func]
        if entry.kind == "kernel":
            steps.append(_kernel_step(ex, entry.name, ins.args, regs, pc, info))
        elif entry.kind == "packed" and entry.name.startswith("vm.builtin."):
            _builtin(ex, entry.name[11:], ins, info, regs, allocs, pc)
        else:
            raise NotStatic(f"calls {entry.kind} {entry.name!r}")
    raise NotStatic("no ret")


def _const(ex: Executable, a: Arg) -> Any:
    if a.kind == ArgKind.IMMEDIATE:
        return a.value
    if a.kind == ArgKind.CONST:
        return ex.constants[a.value]
    raise NotStatic(f"argument {a} is not a constant")


def _builtin(ex: Executable, name: str, ins: Call, info: list[dict[str, Any]],
             regs: dict[int, Any], allocs: list[Buffer], pc: int) -> None:
    args = ins.args
    if name in ("check_tensor_info", "check_dim"):
        p = args[0].value
        buf = regs.get(p) if args[0].kind == ArgKind.REGISTER else None
        if not (isinstance(buf, Buffer) and buf.kind == "param" and buf.index == p):
            raise NotStatic("check on a non-parameter")
        if name == "check_tensor_info":
            info[p]["ndim"], info[p]["dtype"] = _const(ex, args[1]), _const(ex, args[2])
        else:
            info[p]["dims"][_const(ex, args[1])] = _const(ex, args[2])
    elif name == "alloc_tensor" and ins.dst is not None:
        dims = tuple(_const(ex, a) for a in args[1:])
        if not all(isinstance(d, int) and d >= 0 for d in dims):
            raise NotStatic("alloc with non-constant shape")
        new = Buffer(dims, str(np.dtype(_const(ex, args[0])).name), "arena", first=pc, last=pc)
        allocs.append(new)
        regs[ins.dst] = new
    elif name == "make_tuple" and ins.dst is not None:
        regs[ins.dst] = tuple(_reg(regs, a, pc, info) for a in args)
    else:
        raise NotStatic(f"builtin {name}")


def _reg(regs: dict[int, Any], a: Arg, pc: int, info: list[dict[str, Any]]) -> Any:
    if a.kind != ArgKind.REGISTER or a.value not in regs:
        raise NotStatic(f"argument {a} is not a known value")
    v = regs[a.value]
    if isinstance(v, Buffer):
        v.last = pc
        if v.kind == "param":
            _complete(v, info[v.index])
    return v


def _complete(buf: Buffer, d: dict[str, Any]) -> None:
    """Give a parameter its static shape; NotStatic unless rank, dtype and every dim are checked."""
    ndim = d.get("ndim")
    if not isinstance(ndim, int) or sorted(d["dims"]) != list(range(ndim)):
        raise NotStatic(f"parameter {buf.index} is used before it is fully checked")
    buf.shape = tuple(d["dims"][k] for k in range(ndim))
    buf.dtype = str(np.dtype(d["dtype"]).name)


def _kernel_step(ex: Executable, name: str, args: tuple[Arg, ...], regs: dict[int, Any],
                 pc: int, info: list[dict[str, Any]]) -> KernelStep:
    sig = ex.kernels.signatures[name]
    if len(args) != len(sig.params) + len(sig.shape_vars):
        raise NotStatic(f"kernel {name} called with {len(args)} arguments")
    ops: list[Any] = []
    for a in args:
        if a.kind == ArgKind.REGISTER:
            ops.append(_reg(regs, a, pc, info))
        else:
            c = _const(ex, a)
            ops.append(Buffer(c.shape, c.dtype, "const", c._ptr) if isinstance(c, NDArray) else c)
    env: dict[str, int] = {}
    for p, op in zip(sig.params, ops):
        if (p.kind == "buffer") != isinstance(op, Buffer):
            raise NotStatic(f"kernel {name}: {p.name} kind mismatch")
        if p.kind == "scalar":
            if not isinstance(op, (int, float)):
                raise NotStatic(f"kernel {name}: scalar {p.name} is not a number")
            continue
        if op.dtype != p.dtype or len(op.shape) != len(p.shape):
            raise NotStatic(f"kernel {name}: {p.name} does not fit")
        for want, got in zip(p.shape, op.shape):
            if (env.setdefault(want, got) if isinstance(want, str) else want) != got:
                raise NotStatic(f"kernel {name}: {p.name} shape does not fit")
    for v, op in zip(sig.shape_vars, ops[len(sig.params):]):
        if env.get(v, op) != op:
            raise NotStatic(f"kernel {name}: shape var {v} does not fit")
    return KernelStep(name, sig, ops)


def _finish(params: list[Buffer], info: list[dict[str, Any]], regs: dict[int, Any],
            steps: list[KernelStep], allocs: list[Buffer], ret: int) -> StaticPlan:
    for b, d in zip(params, info):
        _complete(b, d)  # every parameter must be pinned, even one no kernel reads
    value = regs.get(ret)
    if value is None:
        raise NotStatic("returns an unknown register")
    outputs: list[Buffer] = []
    for b in value if isinstance(value, tuple) else (value,):
        if not isinstance(b, Buffer):
            raise NotStatic("returns a nested value")
        if b.kind == "arena" and b not in outputs:
            b.kind, b.index = "out", len(outputs)
            outputs.append(b)
    plan = StaticPlan(params, steps, outputs, value, buffers=allocs)
    plan.arena_bytes = _plan_arena([b for b in allocs if b.kind == "arena"])
    return plan


def _plan_arena(bufs: list[Buffer]) -> int:
    """First-fit offsets: buffers whose live ranges overlap never share bytes."""
    placed: list[Buffer] = []
    total = 0
    for b in bufs:
        size = -(-max(b.nbytes, 1) // ARENA_ALIGN) * ARENA_ALIGN
        live = sorted((p.index, p.index + p.nbytes) for p in placed
                      if not (p.last < b.first or b.last < p.first))
        offset = 0
        for lo, hi in live:
            if offset + size <= lo:
                break
            offset = max(offset, -(-hi // ARENA_ALIGN) * ARENA_ALIGN)
        b.index = offset
        placed.append(b)
        total = max(total, offset + size)
    return total
