"""A reference interpreter for TIR: the oracle compiled kernels are tested against.

`run(func, *args)` executes a PrimFunc on numpy arrays (written in place) and Python scalars,
statement by statement, directly from the block form (it shares no code with `tir.lower`, so a
lowering bug cannot hide in both). Slow by design; keep inputs small.

Semantics: loops of every kind run in order; a block binds its iter vars to their values, runs
`init` when every REDUCE iter var sits at its domain's min, and runs only when its predicate
holds; ints wrap to their dtype; floats compute in their own precision (numpy scalars);
`/` truncates on ints; a failed `AssertStmt` stops the whole function, as a kernel returns early.
Allocated buffers start zeroed (a kernel's start undefined: tests must not read them first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtype as dt
from .expr import BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Let, Not, PrimExpr
from .expr import Select, StringImm, Var
from .function import PrimFunc
from .functor import _wrap
from .loop_steps import unit_steps
from .nest_flat import nest_flat
from .stmt import (
    Allocate, AssertStmt, Block, BlockRealize, Buffer, BufferStore, DeclBuffer, Evaluate, For,
    IfThenElse, IterType, LetStmt, SeqStmt, Stmt, While,
)


class _AssertFailed(Exception):
    pass


_NP_MATH = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10,
    "sqrt": np.sqrt, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "round": np.rint,
    "nearbyint": np.rint, "trunc": np.trunc, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "atan": np.arctan, "asin": np.arcsin,
    "acos": np.arccos, "pow": np.power, "copysign": np.copysign, "atan2": np.arctan2,
    "fmod": np.fmod, "hypot": np.hypot, "log1p": np.log1p, "expm1": np.expm1,
    "abs": np.abs, "isnan": np.isnan, "acosh": np.arccosh, "asinh": np.arcsinh,
    "atanh": np.arctanh, "nextafter": np.nextafter, "fma": lambda a, b, c: a * b + c,
}


def run(func: PrimFunc, *args: Any) -> None:
    """Executes `func` on `args` (numpy arrays for buffers, in param order; scalars as is)."""
    func = unit_steps(nest_flat(func))  # the nested, unit-step forms the interpreter runs
    interp = Interpreter()
    interp.bind_params(func, args)
    try:
        interp.exec(func.body)
    except _AssertFailed:
        pass


def _value(dtype: str, v: Any) -> Any:
    """A Python/numpy value of `dtype`: ints wrap, floats round to their precision."""
    if dtype == "bool":
        return bool(v)
    if dt.is_float(dtype):
        return np.dtype(dtype).type(v)
    if dt.is_int(dtype) or dt.is_uint(dtype):
        return _wrap(int(v), dtype)
    return v


class Interpreter:
    """Executes statements; `env` holds scalars, `mem` flat numpy arrays keyed by data var."""

    def __init__(self) -> None:
        self.env: dict[Var, Any] = {}
        self.mem: dict[Any, np.ndarray] = {}
        self.views: dict[Buffer, tuple[Any, int, list[int]]] = {}  # match_buffer windows

    def bind_params(self, func: PrimFunc, args: tuple[Any, ...]) -> None:
        if len(args) != len(func.params):
            raise TypeError(f"the prim_func takes {len(func.params)} arguments, got {len(args)}")
        for p, a in zip(func.params, args):
            buf = func.buffer_of(p)
            if buf is None:
                self.env[p] = _value(p.dtype, a)
                continue
            if not isinstance(a, np.ndarray) or not a.flags.c_contiguous:
                raise TypeError(f"argument {buf.name!r} must be a C-contiguous numpy array")
            for dim, n in zip(buf.shape, a.shape):
                if isinstance(dim, Var) and dim not in self.env:
                    self.env[dim] = n
            self.mem[self._key(buf)] = a.reshape(-1)

    @staticmethod
    def _key(buf: Buffer) -> Any:
        return buf.data if buf.data is not None else buf

    # -- statements -------------------------------------------------------------------------

    def exec(self, s: Stmt) -> None:
        getattr(self, "exec_" + type(s).__name__)(s)

    def exec_SeqStmt(self, s: SeqStmt) -> None:
        for st in s.seq:
            self.exec(st)

    def exec_BufferStore(self, s: BufferStore) -> None:
        value = _value(s.buffer.dtype, self.eval(s.value))
        offset = self._offset(s.buffer, s.indices)  # first: it maps a matched buffer's memory
        self.mem[self._key(s.buffer)][offset] = value

    def exec_For(self, s: For) -> None:
        lo, n = int(self.eval(s.min)), int(self.eval(s.extent))
        for i in range(lo, lo + n):
            self.env[s.loop_var] = _value(s.loop_var.dtype, i)
            try:
                self.exec(s.body)
            except _Continue:
                continue
            except _Break:
                break

    def exec_While(self, s: While) -> None:
        while self.eval(s.condition):
            try:
                self.exec(s.body)
            except _Continue:
                continue
            except _Break:
                break


    def exec_IfThenElse(self, s: IfThenElse) -> None:
        if self.eval(s.condition):
            self.exec(s.then_case)
        elif s.else_case is not None:
            self.exec(s.else_case)

    def exec_AttrStmt(self, s: Any) -> None:
        if s.attr_key == "thread_extent":
            raise NotImplementedError("T.launch_thread launches GPU threads; the interpreter "
                                      "runs CPU programs only")
        self.exec(s.body)

    def exec_LetStmt(self, s: LetStmt) -> None:
        self.env[s.var] = _value(s.var.dtype, self.eval(s.value))
        self.exec(s.body)

    def exec_Evaluate(self, s: Evaluate) -> None:
        self.eval(s.value)

    def exec_AssertStmt(self, s: AssertStmt) -> None:
        if not self.eval(s.condition):
            raise _AssertFailed(s.message)
        self.exec(s.body)

    def exec_Allocate(self, s: Allocate) -> None:
        self._alloc(s.buffer)
        self.exec(s.body)

    def exec_DeclBuffer(self, s: DeclBuffer) -> None:
        self.exec(s.body)

    def _alloc(self, buf: Buffer) -> None:
        size = 1
        for d in buf.shape:
            size *= int(self.eval(d))
        self.mem[self._key(buf)] = np.zeros(size, dtype="uint8" if buf.dtype == "bool"
                                            else buf.dtype)

    def exec_BlockRealize(self, s: BlockRealize) -> None:
        values = [self.eval(v) for v in s.iter_values]
        if not self.eval(s.predicate):
            return
        self._exec_block(s.block, values)

    def exec_Block(self, s: Block) -> None:
        self._exec_block(s, [])

    def _exec_block(self, block: Block, values: list[Any]) -> None:
        for iv, v in zip(block.iter_vars, values):
            self.env[iv.var] = _value(iv.var.dtype, v)
        for buf in block.alloc_buffers:
            self._alloc(buf)
        for m in block.match_buffers:
            self._match(m)
        if block.init is not None and all(
            self.env[iv.var] == self.eval(iv.dom.min)
            for iv in block.iter_vars if iv.iter_type is IterType.REDUCE
        ):
            self.exec(block.init)
        self.exec(block.body)

    def _match(self, m: Any) -> None:
        """A matched buffer views its source region: a strided window of the source memory."""
        src = m.source.buffer
        mins = [int(self.eval(r.min)) for r in m.source.region]
        strides = self._strides(src)
        base = sum(a * b for a, b in zip(mins, strides)) + self._elem_offset(src)
        lead = len(strides) - m.buffer.ndim
        self.views[m.buffer] = (self._key(src), base, strides[lead:])

    # -- memory -----------------------------------------------------------------------------

    def _strides(self, buf: Buffer) -> list[int]:
        if buf.strides:
            return [int(self.eval(s)) for s in buf.strides]
        out, acc = [], 1
        for d in reversed(buf.shape):
            out.append(acc)
            acc *= int(self.eval(d))
        return out[::-1]

    def _elem_offset(self, buf: Buffer) -> int:
        return int(self.eval(buf.elem_offset)) if buf.elem_offset is not None else 0

    def _offset(self, buf: Buffer, indices: tuple[PrimExpr, ...]) -> int:
        idx = [int(self.eval(i)) for i in indices]
        if buf in self.views:
            key, base, strides = self.views[buf]
            self.mem.setdefault(self._key(buf), self.mem[key])
            return base + sum(i * s for i, s in zip(idx, strides))
        shape = [int(self.eval(d)) for d in buf.shape]
        if len(idx) == len(shape) and not buf.strides:
            for axis, (i, n) in enumerate(zip(idx, shape)):
                if not 0 <= i < n:
                    raise IndexError(f"{buf.name}[{idx}] is out of bounds on axis {axis} "
                                     f"(extent {n})")
        return sum(i * s for i, s in zip(idx, self._strides(buf))) + self._elem_offset(buf)

    # -- expressions ------------------------------------------------------------------------

    def eval(self, e: PrimExpr) -> Any:
        return getattr(self, "eval_" + type(e).__name__)(e)

    def eval_IntImm(self, e: IntImm) -> Any:
        return bool(e.value) if e.dtype == "bool" else e.value

    def eval_FloatImm(self, e: FloatImm) -> Any:
        return _value(e.dtype, e.value)

    def eval_StringImm(self, e: StringImm) -> Any:
        return e.value

    def eval_Var(self, v: Var) -> Any:
        try:
            return self.env[v]
        except KeyError:
            raise ValueError(f"variable {v.name!r} is used but not defined") from None

    def eval_Let(self, e: Let) -> Any:
        self.env[e.var] = _value(e.var.dtype, self.eval(e.value))
        return self.eval(e.body)

    def eval_BufferLoad(self, e: BufferLoad) -> Any:
        offset = self._offset(e.buffer, e.indices)  # first: it maps a matched buffer's memory
        v = self.mem[self._key(e.buffer)][offset]
        return _value(e.buffer.dtype, v)

    def eval_Cast(self, e: Cast) -> Any:
        v = self.eval(e.value)
        if dt.is_float(e.dtype) or e.dtype == "bool":
            return _value(e.dtype, v)
        return _value(e.dtype, math.trunc(v) if dt.is_float(e.value.dtype) else v)

    def eval_Not(self, e: Not) -> Any:
        return not self.eval(e.a)

    def eval_Select(self, e: Select) -> Any:
        c, t, f = self.eval(e.condition), self.eval(e.true_value), self.eval(e.false_value)
        return t if c else f

    def eval_BinOp(self, e: BinOp) -> Any:
        if e.op is BinaryOp.AND:
            return bool(self.eval(e.a)) and bool(self.eval(e.b))
        if e.op is BinaryOp.OR:
            return bool(self.eval(e.a)) or bool(self.eval(e.b))
        a, b = self.eval(e.a), self.eval(e.b)
        if e.op.is_comparison:
            return bool(_COMPARE[e.op](a, b))
        if dt.is_float(e.dtype):
            return _value(e.dtype, _FLOAT_OPS[e.op](a, b))
        return _value(e.dtype, _INT_OPS[e.op](int(a), int(b)))

    def eval_Call(self, e: Call) -> Any:
        op = e.op[4:] if e.op.startswith("tir.") else e.op
        if op == "if_then_else":
            return self.eval(e.args[1]) if self.eval(e.args[0]) else self.eval(e.args[2])
        if op == "likely":
            return self.eval(e.args[0])
        if op == "assume":  # a hint to the compiler: nothing to compute
            return True
        if op in ("break_loop", "continue_loop"):
            raise _Break if op == "break_loop" else _Continue
        args = [self.eval(a) for a in e.args]
        if op == "sigmoid":
            return _value(e.dtype, 1 / (1 + np.exp(-args[0])))
        if op == "rsqrt":
            return _value(e.dtype, 1 / np.sqrt(args[0]))
        if op == "erf":
            return _value(e.dtype, math.erf(float(args[0])))
        if op in _NP_MATH:
            return _value(e.dtype, _NP_MATH[op](*args))
        if op in _INT_INTRIN:
            return _value(e.dtype, _INT_INTRIN[op](e.args[0].dtype, *[int(a) for a in args]))
        if op == "ldexp":
            return _value(e.dtype, np.ldexp(args[0], int(args[1])))
        if op == "reinterpret":
            src = dt.to_numpy(e.args[0].dtype)
            return _value(e.dtype, np.array(args[0], src).view(dt.to_numpy(e.dtype)).item())
        raise NotImplementedError(f"the interpreter has no intrinsic {e.op!r}")


class _Break(Exception):
    """`break` on its way to the loop it leaves."""


class _Continue(Exception):
    """`continue` on its way to the loop it resumes."""


def _unsigned(dtype: str, v: int) -> int:
    return v & ((1 << dt.bits(dtype)) - 1)


# Integer intrinsics on Python ints (the caller wraps the result to the call's dtype).
_INT_INTRIN = {
    "bitwise_and": lambda t, a, b: a & b, "bitwise_or": lambda t, a, b: a | b,
    "bitwise_xor": lambda t, a, b: a ^ b, "bitwise_not": lambda t, a: ~a,
    "shift_left": lambda t, a, b: a << b,
    "shift_right": lambda t, a, b: (a if not dt.is_uint(t) else _unsigned(t, a)) >> b,
    "popcount": lambda t, a: bin(_unsigned(t, a)).count("1"),
    "clz": lambda t, a: dt.bits(t) - _unsigned(t, a).bit_length(),
}


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


_INT_OPS = {
    BinaryOp.ADD: lambda a, b: a + b, BinaryOp.SUB: lambda a, b: a - b,
    BinaryOp.MUL: lambda a, b: a * b, BinaryOp.DIV: _trunc_div,
    BinaryOp.MOD: lambda a, b: a - b * _trunc_div(a, b),
    BinaryOp.FLOORDIV: lambda a, b: a // b, BinaryOp.FLOORMOD: lambda a, b: a % b,
    BinaryOp.MIN: min, BinaryOp.MAX: max,
}
_FLOAT_OPS = {
    BinaryOp.ADD: lambda a, b: a + b, BinaryOp.SUB: lambda a, b: a - b,
    BinaryOp.MUL: lambda a, b: a * b, BinaryOp.DIV: lambda a, b: a / b,
    BinaryOp.MOD: np.fmod, BinaryOp.FLOORDIV: lambda a, b: np.floor(a / b),
    BinaryOp.FLOORMOD: lambda a, b: a - np.floor(a / b) * b,
    BinaryOp.MIN: lambda a, b: a if a < b else b, BinaryOp.MAX: lambda a, b: a if a > b else b,
}
_COMPARE = {
    BinaryOp.EQ: lambda a, b: a == b, BinaryOp.NE: lambda a, b: a != b,
    BinaryOp.LT: lambda a, b: a < b, BinaryOp.LE: lambda a, b: a <= b,
    BinaryOp.GT: lambda a, b: a > b, BinaryOp.GE: lambda a, b: a >= b,
}
