"""`te`'s scalar math beyond the basics: trig, division flavours, float classes, any/all,
and `comm_reducer` (a user-defined commutative reduction usable like `te.sum`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from ..tir import expr as tx

B = tx.BinaryOp


def _call(op: str) -> Callable[[Any], tx.PrimExpr]:
    def f(x: Any) -> tx.PrimExpr:
        x = tx.const(x)
        if not x.dtype.startswith("float"):
            raise TypeError(f"te.{op} takes a float expression, got {x.dtype}")
        return tx.Call(x.dtype, f"tir.{op}", (x,))
    f.__name__ = op
    return f


sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh = (_call(n) for n in (
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"))
log2, log10, trunc, nearbyint = (_call(n) for n in ("log2", "log10", "trunc", "nearbyint"))


def _binop(op: tx.BinaryOp, name: str) -> Callable[[Any, Any], tx.PrimExpr]:
    def f(a: Any, b: Any, span: Any = None) -> tx.PrimExpr:
        return tx.binop(op, a, b)
    f.__name__ = name
    return f


floordiv = _binop(B.FLOORDIV, "floordiv")
floormod = _binop(B.FLOORMOD, "floormod")
truncdiv = _binop(B.DIV, "truncdiv")
truncmod = _binop(B.MOD, "truncmod")
indexdiv = _binop(B.FLOORDIV, "indexdiv")
indexmod = _binop(B.FLOORMOD, "indexmod")
# NOTE: TVM's tir.div is true division on floats and truncating division on integers
div = _binop(B.DIV, "div")


def popcount(x: Any) -> tx.PrimExpr:
    """The number of set bits of an integer expression."""
    x = tx.const(x)
    if not x.dtype.startswith(("int", "uint")):
        raise TypeError(f"te.popcount takes an integer expression, got {x.dtype}")
    return tx.Call(x.dtype, "tir.popcount", (x,))


def fmod(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    return tx.Call(a.dtype, "tir.fmod", (a, b))


def power(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    return tx.Call(a.dtype, "tir.pow", (a, b))


def logaddexp(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    big, small = tx.binop(B.MAX, a, b), tx.binop(B.MIN, a, b)
    return big + tx.Call(a.dtype, "tir.log1p", (tx.Call(a.dtype, "tir.exp", (small - big,)),))


def isnan(x: Any) -> tx.PrimExpr:
    x = tx.const(x)
    return tx.binop(B.NE, x, x) if x.dtype.startswith("float") else tx.const(False, "bool")


def isfinite(x: Any) -> tx.PrimExpr:
    x = tx.const(x)
    if not x.dtype.startswith("float"):
        return tx.const(True, "bool")
    return tx.binop(B.EQ, x - x, tx.const(0, x.dtype))  # x - x is NaN for inf and NaN


def isinf(x: Any) -> tx.PrimExpr:
    x = tx.const(x)
    if not x.dtype.startswith("float"):
        return tx.const(False, "bool")
    return tx.binop(B.AND, tx.binop(B.EQ, x, x), tx.binop(B.NE, x - x, tx.const(0, x.dtype)))


def any(*conds: Any) -> tx.PrimExpr:  # noqa: A001 (TVM's name)
    """The logical or of the conditions given."""
    if not conds:
        raise ValueError("te.any needs at least one condition")
    return functools.reduce(lambda a, b: tx.binop(B.OR, a, b), (tx.const(c) for c in conds))


def all(*conds: Any) -> tx.PrimExpr:  # noqa: A001 (TVM's name)
    """The logical and of the conditions given."""
    if not conds:
        raise ValueError("te.all needs at least one condition")
    return functools.reduce(lambda a, b: tx.binop(B.AND, a, b), (tx.const(c) for c in conds))


@dataclass(frozen=True, eq=False)
class CommReducer:
    """A commutative reducer: `combine(acc, x)` and its identity element for a dtype."""

    fcombine: Callable[[tx.PrimExpr, tx.PrimExpr], tx.PrimExpr]
    fidentity: Callable[[str], Any]
    name: str = "reduce"

    def combine(self, a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
        return self.fcombine(a, b)

    def identity(self, dtype: str) -> tx.PrimExpr:
        value = self.fidentity(dtype)
        return value if isinstance(value, tx.PrimExpr) else tx.const(value, dtype)

    def identities(self, dtypes: tuple[str, ...]) -> tuple[tx.PrimExpr, ...]:
        """A tuple reducer's identity: `fidentity(dtype0, dtype1, ...)`, one value each."""
        values = self.fidentity(*dtypes)
        return tuple(v if isinstance(v, tx.PrimExpr) else tx.const(v, d)
                     for v, d in zip(values, dtypes))

    def __call__(self, expr: Any, axis: Any, where: Any = None, init: Any = None) -> Any:
        from .tensor import Reduce

        axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
        if isinstance(expr, (list, tuple)):  # a tuple reduction: one Reduce per value
            sources = tuple(tx.const(e) for e in expr)
            return tuple(Reduce(self, src, axes, where, None, sources=sources, value_index=k)
                         for k, src in enumerate(sources))
        return Reduce(self, tx.const(expr), axes, where, None if init is None else tx.const(init))

    def __str__(self) -> str:
        return f"comm_reducer {self.name!r}"


def comm_reducer(fcombine: Callable[..., Any], fidentity: Callable[..., Any],
                 name: str = "reduce") -> CommReducer:
    """`te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, t))`: a new reducer.
    A tuple reducer's `fcombine(x, y)` takes and returns tuples, its `fidentity` one dtype
    per value (`argmax((idx, val), axis=k)` then gives one reduction per value)."""
    return CommReducer(fcombine, fidentity, name)
