"""TIR node classes as the `T` namespace exposes them (`T.Add`, `T.Ramp`, `T.IterVar`, ...).

Where TVM's constructor takes its arguments in another order or form than tvmlite's dataclass
(lists for tuples, `IterVar(dom, var, ...)`), the name here is a view: calling it builds the
tvmlite node, and `isinstance` checks against the node class.
"""

from __future__ import annotations

from typing import Any

from ..tir import expr as tx
from ..tir import expr_nodes as xn
from ..tir import stmt as ts
from ..tir.expr_nodes import (  # noqa: F401 (re-exported as T.*)
    EQ, GE, GT, LE, LT, NE, Add, Max, Min, Mul, Sub,
)
from ..tir.expr import FloatImm, IntImm, Var  # noqa: F401 (re-exported as T.*)
from ..tir.expr_nodes import CommReducer  # noqa: F401 (re-exported as T.*)


class _View(type):
    """Metaclass of a constructor view over the tvmlite class `node`."""

    node: type

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.build(*args, **kwargs)  # type: ignore[attr-defined]

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.node)


class _CallView(type):
    """Metaclass of TVM's bit-operation node classes, which tvmlite keeps as `tir.Call`s of
    `op`: calling one builds the call, `isinstance` checks the call's op."""

    op: str

    def __call__(cls, *args: Any, span: Any = None) -> tx.PrimExpr:  # type: ignore[override]
        if cls.op == "bitwise_not":
            (a,) = args
            return ~tx.const(a)
        return tx.bitop(cls.op, *args)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, tx.Call) and obj.op == "tir." + cls.op


def _call_view(name: str, op: str) -> type:
    return _CallView(name, (), {"op": op, "__doc__": f"TVM's tir.{name}: `tir.{op}`."})


BitwiseAnd = _call_view("BitwiseAnd", "bitwise_and")
BitwiseOr = _call_view("BitwiseOr", "bitwise_or")
BitwiseXor = _call_view("BitwiseXor", "bitwise_xor")
BitwiseNot = _call_view("BitwiseNot", "bitwise_not")
LShift = _call_view("LShift", "shift_left")
RShift = _call_view("RShift", "shift_right")


def _ints(xs: Any) -> tuple[tx.PrimExpr, ...]:
    return tuple(tx.const(x) for x in (xs if isinstance(xs, (list, tuple)) else [xs]))


class Call(metaclass=_View):
    """`T.Call(dtype, op, args)`: an intrinsic call (op by name, e.g. "tir.exp")."""

    node = tx.Call

    @staticmethod
    def build(dtype: str, op: Any, args: Any = (), span: Any = None) -> tx.Call:
        op = op if isinstance(op, str) else getattr(op, "name", str(op))
        return tx.Call(str(dtype), op, tuple(tx.StringImm(a) if isinstance(a, str) else
                                             tx.const(a) for a in args), span)


class BufferLoad(metaclass=_View):
    """`T.BufferLoad(buffer, indices)`: one element of a buffer."""

    node = tx.BufferLoad

    @staticmethod
    def build(buffer: ts.Buffer, indices: Any, span: Any = None) -> tx.BufferLoad:
        return tx.BufferLoad(buffer, _ints(indices), span)


class Ramp(metaclass=_View):
    """`T.Ramp(base, stride, lanes)`: base, base + stride, ... over `lanes` lanes."""

    node = xn.Ramp

    @staticmethod
    def build(base: Any, stride: Any, lanes: Any, span: Any = None) -> xn.Ramp:
        base, stride = tx._as_operands(base, stride)
        return xn.Ramp(base, stride, int(lanes), span)


class Broadcast(metaclass=_View):
    """`T.Broadcast(value, lanes)`: one scalar in every lane."""

    node = xn.Broadcast

    @staticmethod
    def build(value: Any, lanes: Any, span: Any = None) -> xn.Broadcast:
        return xn.Broadcast(tx.const(value), int(lanes), span)


class Shuffle(metaclass=_View):
    """`T.Shuffle(vectors, indices)`: lanes picked from the vectors laid end to end."""

    node = xn.Shuffle

    @staticmethod
    def build(vectors: Any, indices: Any, span: Any = None) -> xn.Shuffle:
        return xn.Shuffle(_ints(vectors), _ints(indices), span)


ramp, broadcast = Ramp, Broadcast


class IterVar(metaclass=_View):
    """`T.IterVar(dom, var, iter_type, thread_tag)` in TVM's argument order."""

    node = ts.IterVar

    @staticmethod
    def build(dom: Any, var: Any, iter_type: Any, thread_tag: str = "",
              span: Any = None) -> ts.IterVar:
        return iter_var(var, dom, iter_type, thread_tag)


_ITER_KINDS = {0: ts.IterType.SPATIAL, 2: ts.IterType.REDUCE, 3: ts.IterType.OPAQUE,
               "DataPar": ts.IterType.SPATIAL, "CommReduce": ts.IterType.REDUCE,
               "Opaque": ts.IterType.OPAQUE, "S": ts.IterType.SPATIAL,
               "R": ts.IterType.REDUCE, "O": ts.IterType.OPAQUE}


def iter_var(v: Any, dom: Any, iter_type: Any, thread_tag: str = "") -> ts.IterVar:
    """`T.iter_var(var_or_name, dom, "DataPar" | "CommReduce" | "Opaque", thread_tag)`."""
    var = v if isinstance(v, tx.Var) else tx.Var(str(v), "int32")
    if isinstance(dom, (tuple, list)):
        lo, hi = tx._as_operands(dom[0], dom[1])
        dom = ts.Range(lo, hi - lo if not isinstance(lo, tx.IntImm) or lo.value else hi)
    elif dom is not None and not isinstance(dom, ts.Range):
        dom = ts.Range.from_extent(dom)
    kind = iter_type if isinstance(iter_type, ts.IterType) else _ITER_KINDS.get(iter_type)
    if kind is None:
        raise ValueError(f"unknown iterator type {iter_type!r}; use 'DataPar', 'CommReduce' "
                         "or 'Opaque'")
    return ts.IterVar(var, dom, kind)


def Range(begin: Any, end: Any = None) -> ts.Range:  # noqa: N802 (TVM's name)
    """`T.Range(begin, end)`: the half-open range [begin, end) as (min, extent)."""
    if end is None:
        begin, end = 0, begin
    lo, hi = tx._as_operands(begin, end)
    if isinstance(lo, tx.IntImm) and lo.value == 0:
        return ts.Range(lo, hi)
    if isinstance(lo, tx.IntImm) and isinstance(hi, tx.IntImm):
        return ts.Range(lo, tx.IntImm(hi.dtype, hi.value - lo.value))
    return ts.Range(lo, hi - lo)


def Let(expr: Any, where: dict[Any, Any]) -> tx.PrimExpr:  # noqa: N802 (TVM's name)
    """`T.Let(body, where={x: value})`: `body` with each `x` bound to its value."""
    body = tx.const(expr)
    for var, value in reversed(list(where.items())):
        body = tx.Let(var, tx.const(value, var.dtype), body)
    return body


class Reduce(metaclass=_View):
    """`T.Reduce(combiner, src, rdom, condition, value_index, init)`."""

    node = xn.Reduce

    @staticmethod
    def build(combiner: xn.CommReducer, src: Any, rdom: Any, condition: Any,
              value_index: int, init: Any = (), span: Any = None) -> xn.Reduce:
        return xn.Reduce(combiner, _ints(src), tuple(rdom), tx.const(condition),
                         int(value_index), _ints(init) if init else (), span)


def comm_reducer(combiner: Any, identity: Any) -> xn.CommReducer:
    """`T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`: a commutative reducer."""
    ident = _ints(identity)
    lhs = tuple(tx.Var(f"x{i}" if len(ident) > 1 else "x", e.dtype) for i, e in enumerate(ident))
    rhs = tuple(tx.Var(f"y{i}" if len(ident) > 1 else "y", e.dtype) for i, e in enumerate(ident))
    result = combiner(*lhs, *rhs)
    return xn.CommReducer(lhs, rhs, _ints(result), ident)


__all__ = ["Add", "Sub", "Mul", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE", "IntImm",
           "FloatImm", "Var", "Call", "BufferLoad", "Ramp", "Broadcast", "Shuffle", "ramp",
           "broadcast", "IterVar", "iter_var", "Range", "Let", "CommReducer", "Reduce",
           "comm_reducer", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "LShift",
           "RShift"]
