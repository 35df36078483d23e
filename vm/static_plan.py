"""Static-region analysis for the native fast path.

A VMFunction is *static* when its bytecode is straight-line and uses only: entry checks that pin
every parameter to one static shape and dtype, `alloc_tensor` with constant shapes, kernel calls
whose arguments match the kernel signatures at those shapes, `make_tuple`, and `ret`. Then the
whole function is known before any call: which memory each kernel touches, which allocations
are returned (outputs: fresh per call) and which are intermediates (planned into an arena).

A function whose only unknowns are *symbolic dims* is accepted too: `tensor_dim` binds a dim of
a parameter to a shape-var slot (`Sym`), `eval_shape` computes a slot from earlier ones (its
postfix program is kept, never eval'ed), `check_dim_equal` / `check_shape_value` pin a dim to a
slot. Shapes then hold ints and `Sym`s; the arena is planned into *tokens* (one size expression
each, reused only by buffers of the same size expression) whose offsets the host computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .bytecode import Arg, ArgKind, Call, Ret
from .executable import Executable, VMFunction
from .builtins import compile_shape_program
from .kernel_signature import KernelSignature, computed_dim, dim_text
from .ndarray import NDArray

ARENA_ALIGN = 64


class NotStatic(Exception):
    """The function is outside what the native fast path compiles."""


@dataclass(frozen=True)
class Sym:
    """A symbolic dim: the value of shape-var slot `slot` (see StaticPlan.slots)."""

    slot: int


Dim = int | Sym


@dataclass
class Buffer:
    shape: tuple[Dim, ...]
    dtype: str
    kind: str  # "param" | "out" | "arena" | "const" | "view"
    index: int = 0  # param index, output index, arena offset, or constant data address
    first: int = 0  # instruction that defines it / last that uses it (arena planning)
    last: int = 0
    base: Buffer | None = None  # a view's (vm.builtin.reshape) buffer, whose memory it is

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass
class KernelStep:
    name: str
    sig: KernelSignature
    operands: list[Any]  # Buffer | int | float | Sym, in ABI order (shape vars appended)


@dataclass
class StaticPlan:
    params: list[Buffer]
    steps: list[KernelStep]
    outputs: list[Buffer]
    ret: Any  # Buffer or tuple of Buffers
    arena_bytes: int = 0
    buffers: list[Buffer] = field(default_factory=list)
    # Symbolic plans only. A slot is ("dim", param, axis) or ("eval", program, operands): its
    # value is a parameter's dim, or the postfix `program` applied to operands (Sym | int).
    slots: list[tuple[Any, ...]] = field(default_factory=list)
    # (itemsize, dims) per arena token; an arena buffer's `index` is then its token number
    tokens: list[tuple[int, tuple[Dim, ...]]] = field(default_factory=list)


def analyze(ex: Executable, fn: VMFunction) -> StaticPlan:
    """The static plan of `fn`, or NotStatic."""
    n = len(fn.params)
    info: list[dict[str, Any]] = [{"dims": {}} for _ in range(n)]
    # NOTE: parameter buffers get their shape once their checks are complete (see _reg)
    params = [Buffer((), "", "param", i) for i in range(n)]
    regs: dict[int, Any] = dict(enumerate(params))
    steps: list[KernelStep] = []
    allocs: list[Buffer] = []
    slots: list[tuple[Any, ...]] = []
    for pc, ins in enumerate(fn.instructions):
        if isinstance(ins, Ret):
            return _finish(params, info, regs, steps, allocs, ins.result, slots)
        if not isinstance(ins, Call):
            raise NotStatic("control flow")
        entry = ex.func_table[ins.func]
        if entry.kind == "kernel":
            steps.append(_kernel_step(ex, entry.name, ins.args, regs, pc, info, slots))
        elif entry.kind == "packed" and entry.name.startswith("vm.builtin."):
            _builtin(ex, entry.name[11:], ins, (info, regs, allocs, slots), pc)
        else:
            raise NotStatic(f"calls {entry.kind} {entry.name!r}")
    raise NotStatic("no ret")


def _const(ex: Executable, a: Arg) -> Any:
    if a.kind == ArgKind.IMMEDIATE:
        return a.value
    if a.kind == ArgKind.CONST:
        return ex.constants[a.value]
    raise NotStatic(f"argument {a} is not a constant")


def _dim(ex: Executable, a: Arg, regs: dict[int, Any]) -> Dim:
    """A dim argument: a constant, or a register holding a symbolic dim."""
    v = regs.get(a.value) if a.kind == ArgKind.REGISTER else _const(ex, a)
    if isinstance(v, Sym) or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    raise NotStatic(f"argument {a} is not a dim")


def _param(a: Arg, regs: dict[int, Any]) -> int:
    buf = regs.get(a.value) if a.kind == ArgKind.REGISTER else None
    if not (isinstance(buf, Buffer) and buf.kind == "param" and buf.index == a.value):
        raise NotStatic("check on a non-parameter")
    return a.value


def _pin(d: dict[str, Any], axis: Any, value: Dim) -> None:
    # NOTE: one constraint per axis; a second, different one (a later match_cast) is not
    # expressible in the plan's per-parameter shape, so we leave such functions alone
    if d["dims"].setdefault(axis, value) != value:
        raise NotStatic("a parameter dim is checked twice")


State = tuple[list[dict[str, Any]], dict[int, Any], list[Buffer], list[tuple[Any, ...]]]


def _builtin(ex: Executable, name: str, ins: Call, state: State, pc: int) -> None:
    info, regs, allocs, slots = state
    args = ins.args
    if name in ("check_tensor_info", "check_dim", "check_dim_equal", "check_shape_value"):
        d = info[_param(args[0], regs)]
        if name == "check_tensor_info":
            d["ndim"], d["dtype"] = _const(ex, args[1]), _const(ex, args[2])
        else:
            _pin(d, _const(ex, args[1]), _dim(ex, args[2], regs))
    elif name == "tensor_dim" and ins.dst is not None:
        p, axis = _param(args[0], regs), _const(ex, args[1])
        regs[ins.dst] = Sym(len(slots))
        slots.append(("dim", p, axis))
        _pin(info[p], axis, regs[ins.dst])
    elif name == "eval_shape" and ins.dst is not None:
        program = _const(ex, args[0])
        if not isinstance(program, str):
            raise NotStatic("eval_shape without a program")
        regs[ins.dst] = Sym(len(slots))
        slots.append(("eval", program, tuple(_dim(ex, a, regs) for a in args[1:])))
    elif name == "alloc_tensor" and ins.dst is not None:
        dims = tuple(_dim(ex, a, regs) for a in args[1:])
        if not all(isinstance(d, Sym) or d >= 0 for d in dims):
            raise NotStatic("alloc with a negative dim")
        new = Buffer(dims, str(np.dtype(_const(ex, args[0])).name), "arena", first=pc, last=pc)
        allocs.append(new)
        regs[ins.dst] = new
    elif name == "make_tuple" and ins.dst is not None:
        regs[ins.dst] = tuple(_reg(regs, a, pc, info) if a.kind == ArgKind.REGISTER
                              else _dim(ex, a, regs) for a in args)
    elif name == "reshape" and ins.dst is not None:
        # a view: no step; its uses keep its base's memory alive (see _reg)
        base, dims = _reg(regs, args[0], pc, info), _reg(regs, args[1], pc, info)
        if not isinstance(base, Buffer) or not isinstance(dims, tuple):
            raise NotStatic("reshape of an unknown value")
        regs[ins.dst] = Buffer(tuple(dims), base.dtype, "view", base=base.base or base)
    elif name == "tuple_getitem" and ins.dst is not None:
        # a multi-output kernel's tuple (batch_norm's): the member is the same Buffer, so
        # its later uses extend its own live range
        whole, index = _reg(regs, args[0], pc, info), _const(ex, args[1])
        if not isinstance(whole, tuple) or not isinstance(index, int) \
                or not -len(whole) <= index < len(whole):
            raise NotStatic("tuple_getitem of an unknown tuple")
        regs[ins.dst] = whole[index]
    else:
        raise NotStatic(f"builtin {name}")


def _reg(regs: dict[int, Any], a: Arg, pc: int, info: list[dict[str, Any]]) -> Any:
    if a.kind != ArgKind.REGISTER or a.value not in regs:
        raise NotStatic(f"argument {a} is not a known value")
    v = regs[a.value]
    if isinstance(v, Buffer):
        for b in (v, v.base) if v.base is not None else (v,):
            b.last = pc
            if b.kind == "param":
                _complete(b, info[b.index])
    return v


def _complete(buf: Buffer, d: dict[str, Any]) -> None:
    """Give a parameter its static shape; NotStatic unless rank, dtype and every dim are checked."""
    ndim = d.get("ndim")
    if not isinstance(ndim, int) or sorted(d["dims"]) != list(range(ndim)):
        raise NotStatic(f"parameter {buf.index} is used before it is fully checked")
    if not d.get("dtype"):  # checked against an annotation without a dtype
        raise NotStatic(f"parameter {buf.index} has no known dtype")
    buf.shape = tuple(d["dims"][k] for k in range(ndim))
    buf.dtype = str(np.dtype(d["dtype"]).name)


def _kernel_step(ex: Executable, name: str, args: tuple[Arg, ...], regs: dict[int, Any],
                 pc: int, info: list[dict[str, Any]], slots: list[tuple[Any, ...]]
                 ) -> KernelStep:
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
    computed: list[tuple[str, Any]] = []
    for p, op in zip(sig.params, ops):
        if (p.kind == "buffer") != isinstance(op, Buffer):
            raise NotStatic(f"kernel {name}: {p.name} kind mismatch")
        if p.kind == "scalar":
            if isinstance(op, Sym) or not isinstance(op, (int, float)):
                raise NotStatic(f"kernel {name}: scalar {p.name} is not a number")
            continue
        if op.dtype != p.dtype or len(op.shape) != len(p.shape):
            raise NotStatic(f"kernel {name}: {p.name} does not fit")
        for want, got in zip(p.shape, op.shape):
            if computed_dim(want) is not None:
                computed.append((want, got))
            elif (env.setdefault(want, got) if isinstance(want, str) else want) != got:
                raise NotStatic(f"kernel {name}: {p.name} shape does not fit")
    _check_computed(name, computed, env, slots)
    for v, op in zip(sig.shape_vars, ops[len(sig.params):]):
        if env.get(v, op) != op:
            raise NotStatic(f"kernel {name}: shape var {v} does not fit")
    return KernelStep(name, sig, ops)


def _check_computed(name: str, computed: list[tuple[str, Any]], env: dict[str, Any],
                    slots: list[tuple[Any, ...]]) -> None:
    """A computed kernel dim (`n * 2`) must be provably right, or the function is not planned
    here (the reference path checks it at run time instead). Symbolically, it is right when
    the buffer's dim was computed by the same program from the same shape values."""
    for want, got in computed:
        program, names = computed_dim(want)  # type: ignore[misc]
        values = tuple(env.get(n) for n in names)
        if all(isinstance(v, int) for v in values) and isinstance(got, int):
            if compile_shape_program(program)(*values) == got:
                continue
        elif isinstance(got, Sym) and slots[got.slot] == ("eval", program, values):
            continue
        raise NotStatic(f"kernel {name}: computed dim {dim_text(want)} is not provably right")


def _finish(params: list[Buffer], info: list[dict[str, Any]], regs: dict[int, Any],
            steps: list[KernelStep], allocs: list[Buffer], ret: int,
            slots: list[tuple[Any, ...]]) -> StaticPlan:
    for b, d in zip(params, info):
        _complete(b, d)  # every parameter must be pinned, even one no kernel reads
    value = regs.get(ret)
    if value is None:
        raise NotStatic("returns an unknown register")
    value = _returned_views(value)
    outputs: list[Buffer] = []
    for b in value if isinstance(value, tuple) else (value,):
        if not isinstance(b, Buffer):
            raise NotStatic("returns a nested value")
        if b.kind == "arena" and b not in outputs:
            b.kind, b.index = "out", len(outputs)
            outputs.append(b)
    plan = StaticPlan(params, steps, outputs, value, buffers=allocs, slots=slots)
    arena = [b for b in allocs if b.kind == "arena"]
    if slots:
        plan.tokens = _plan_tokens(arena)
    else:
        plan.arena_bytes = _plan_arena(arena)
    return plan


def _returned_views(value: Any) -> Any:
    """The returned value with each returned view replaced by its base, reshaped: the kernel
    that fills the base then writes the output the caller gets. A view of a parameter or
    constant, or of a buffer returned twice, is left to the reference path."""
    members = value if isinstance(value, tuple) else (value,)
    bases = [b.base if isinstance(b, Buffer) and b.base is not None else b for b in members]
    out = []
    for b, base in zip(members, bases):
        if isinstance(b, Buffer) and b.base is not None:
            if base.kind != "arena" or sum(x is base for x in bases) > 1:
                raise NotStatic("returns a view it cannot own")
            base.shape, b = b.shape, base
        out.append(b)
    return tuple(out) if isinstance(value, tuple) else out[0]


def _plan_tokens(bufs: list[Buffer]) -> list[tuple[int, tuple[Dim, ...]]]:
    """Symbolic sizes cannot be compared, so a buffer reuses a dead buffer's token only when
    both have the same size expression (itemsize, dims); each token is its own arena range."""
    tokens: list[tuple[int, tuple[Dim, ...]]] = []
    free_after: list[int] = []  # last instruction using each token so far
    for b in bufs:
        key = (np.dtype(b.dtype).itemsize, b.shape)
        if all(isinstance(d, int) for d in b.shape):  # static: any token of equal bytes
            key = (int(np.prod(b.shape, dtype=np.int64)) * key[0], ())
        k = next((i for i, t in enumerate(tokens) if t == key and free_after[i] < b.first),
                 len(tokens))
        if k == len(tokens):
            tokens.append(key)
            free_after.append(b.last)
        free_after[k] = max(free_after[k], b.last)
        b.index = k
    return tokens


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
