"""Tensor creators and masks: arange, full_like / zeros_like / ones_like, eye / eye_like,
tril / triu. Scalars (arange's bounds, eye's sizes, tril's diagonal) are PrimValue arguments,
as in TVM, so they may be symbolic."""

from __future__ import annotations

import math
from typing import Any

from ...tir import expr as tx
from ...tir.functor import simplify
from .. import expr as rx
from .. import struct_info as si
from .base import (
    ELEMWISE, INJECTIVE, as_expr, as_int, call, op_error, out_tensor, register,
    scalar_const, tensor_arg,
)


def prim_arg(v: Any, dtype: str | None = None) -> rx.Expr:
    """A Python number or TIR expression as a PrimValue argument (ints are int64)."""
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return as_expr(tx.const(v, dtype or "int64"))
    return as_expr(tx.const(v, dtype) if dtype else v)


def prim_of(name: str, c: rx.Call, i: int, what: str) -> tx.PrimExpr:
    s = c.args[i].struct_info
    if not isinstance(s, si.PrimStructInfo):
        raise op_error(name, f"{what} must be a scalar (a number or R.prim_value), got "
                             f"{type(s).__name__}")
    return s.value if s.value is not None else c.args[i].value  # type: ignore[attr-defined]


def _number(e: tx.PrimExpr) -> float | int | None:
    e = simplify(e)
    return e.value if isinstance(e, (tx.IntImm, tx.FloatImm)) else None


def _infer_arange(c: rx.Call) -> si.StructInfo:
    start, end, step = (prim_of("relax.arange", c, i, w) for i, w in
                        enumerate(("start", "end", "step")))
    dtype = c.attr("dtype")
    vals = [_number(v) for v in (start, end, step)]
    if all(v is not None for v in vals):
        if vals[2] == 0:
            raise op_error("relax.arange", "step must not be 0")
        return out_tensor((max(0, math.ceil((vals[1] - vals[0]) / vals[2])),), dtype)
    if not all(v.dtype.startswith("int") for v in (start, end, step)):
        return si.TensorStructInfo(None, dtype, 1)
    return out_tensor((_ceil_count(start, end, step),), dtype)


def _ceil_count(start: tx.PrimExpr, end: tx.PrimExpr, step: tx.PrimExpr) -> tx.PrimExpr:
    """`ceil((end - start) / step)`; with constant start and step the constants fold into one
    offset, as TVM's simplifier leaves it (`n // 2` for arange(1, n, 2))."""
    if isinstance(start, tx.IntImm) and isinstance(step, tx.IntImm) and step.value > 0:
        off = step.value - 1 - start.value
        top = end if off == 0 else end + tx.const(off, end.dtype) if off > 0 else \
            end - tx.const(-off, end.dtype)
        return top if step.value == 1 else tx.binop(tx.BinaryOp.FLOORDIV, top, step)
    return (end - start + step - 1) // step


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None) -> rx.Call:
    """`[start, end)` in steps of `step`; `arange(n)` counts from 0."""
    if end is None:
        start, end = 0, start
    floats = any(isinstance(v, float) or (isinstance(v, tx.PrimExpr) and
                                         v.dtype.startswith("float")) for v in (start, end, step))
    dt = str(dtype) if dtype is not None else ("float32" if floats else "int64")
    return call("relax.arange", (prim_arg(start), prim_arg(end), prim_arg(step)), dtype=dt)


def _infer_like(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    if name == "relax.full_like":
        v = tensor_arg(name, c, 1, "fill_value")
        if v.ndim > 0:
            raise op_error(name, f"fill_value must be a scalar (0-d) tensor, got rank {v.ndim}")
    return si.TensorStructInfo(x.shape, c.attr("dtype") or x.dtype, x.ndim)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> rx.Call:
    if isinstance(fill_value, (int, float)):
        base = getattr(as_expr(x).struct_info, "dtype", "") or "float32"
        fill_value = scalar_const(fill_value, str(dtype or base))
    return call("relax.full_like", (x, fill_value), dtype=None if dtype is None else str(dtype))


def zeros_like(x: Any, dtype: Any = None) -> rx.Call:
    return call("relax.zeros_like", (x,), dtype=None if dtype is None else str(dtype))


def ones_like(x: Any, dtype: Any = None) -> rx.Call:
    return call("relax.ones_like", (x,), dtype=None if dtype is None else str(dtype))


def _infer_eye(c: rx.Call) -> si.StructInfo:
    n, m = prim_of("relax.eye", c, 0, "n"), prim_of("relax.eye", c, 1, "m")
    prim_of("relax.eye", c, 2, "k")
    for what, v in (("n", n), ("m", m)):
        if as_int(v) is not None and as_int(v) < 0:
            raise op_error("relax.eye", f"{what} must not be negative, got {as_int(v)}")
    return out_tensor((n, m), c.attr("dtype"))


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = "float32") -> rx.Call:
    """A 2-d tensor with ones on the k-th diagonal."""
    return call("relax.eye", (prim_arg(n), prim_arg(n if m is None else m), prim_arg(k)),
                dtype=str(dtype))


def _infer_eye_like(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.eye_like", c, 0, "the input")
    if x.ndim not in (-1, 2):
        raise op_error("relax.eye_like", f"the input must be 2-d, got rank {x.ndim}")
    prim_of("relax.eye_like", c, 1, "k")
    return si.TensorStructInfo(x.shape, c.attr("dtype") or x.dtype, 2)


def eye_like(x: Any, k: Any = 0, dtype: Any = None) -> rx.Call:
    return call("relax.eye_like", (x, prim_arg(k)), dtype=None if dtype is None else str(dtype))


def _infer_tri(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    if 0 <= x.ndim < 2:
        raise op_error(name, f"the input must have at least 2 dimensions, got rank {x.ndim}")
    prim_of(name, c, 1, "k")
    return x


def tril(x: Any, k: Any = 0) -> rx.Call:
    """The lower triangle of the last two axes (below and on diagonal `k`); the rest zero."""
    return call("relax.tril", (x, prim_arg(k)))


def triu(x: Any, k: Any = 0) -> rx.Call:
    """The upper triangle of the last two axes (above and on diagonal `k`); the rest zero."""
    return call("relax.triu", (x, prim_arg(k)))


register("relax.arange", _infer_arange, arange, INJECTIVE)
register("relax.full_like", _infer_like, full_like, ELEMWISE)
register("relax.zeros_like", _infer_like, zeros_like, ELEMWISE)
register("relax.ones_like", _infer_like, ones_like, ELEMWISE)
register("relax.eye", _infer_eye, eye, INJECTIVE)
register("relax.eye_like", _infer_eye_like, eye_like, INJECTIVE)
register("relax.tril", _infer_tri, tril, INJECTIVE)
register("relax.triu", _infer_tri, triu, INJECTIVE)
