"""`tvm.te`: tensor expressions and `create_prim_func` (see tensor.py, prim_func.py)."""

from __future__ import annotations

from typing import Any

from ..tir import expr as _tx
from .prim_func import create_prim_func
from .tensor import (  # noqa: A004 (TVM's names shadow builtins here on purpose)
    AxisVar, ComputeOp, LoopNest, PlaceholderOp, Reduce, Tensor, compute, loop_nest, max, min,
    with_epilogue,
    placeholder, prod, reduce_axis, sum,
)
from .tensor import TensorSlice, tag_scope
from .extern import ExternOp, extern, extern_primfunc
from .scan import ScanOp, scan
from .tensor import Operation
from .math import (  # noqa: A004 (TVM's names)
    CommReducer, acos, acosh, all, any, asin, asinh, atan, atanh, comm_reducer, cos, cosh, div,
    floordiv, floormod, fmod, indexdiv, indexmod, isfinite, isinf, isnan, log2, log10, logaddexp,
    nearbyint, popcount, power, sin, sinh, tan, trunc, truncdiv, truncmod,
)


def var(name: str = "tindex", dtype: str = "int32") -> _tx.Var:
    return _tx.Var(name, dtype)


size_var = var


def thread_axis(dom: Any = None, tag: str = "", name: str = "", span: Any = None) -> Any:
    """`te.thread_axis("threadIdx.x")`: an IterVar bound to a GPU thread index (for
    `T.launch_thread` / AttrStmt "thread_extent"); `dom` is an extent, (min, end) or a Range."""
    from ..tir.functor import simplify
    from ..tir.stmt import IterType, IterVar, Range

    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("te.thread_axis: the thread tag must be given (e.g. 'threadIdx.x')")
    if isinstance(dom, (tuple, list)):
        lo, hi = (_tx.const(v) for v in dom)
        dom = Range(lo, simplify(hi - lo))
    elif dom is not None and not isinstance(dom, Range):
        dom = Range.from_extent(dom)
    return IterVar(_tx.Var(name or tag, "int32"), dom, IterType.THREAD, tag)


def const(value: Any, dtype: str | None = None) -> _tx.PrimExpr:
    return _tx.const(value, dtype)


def _math(op: str) -> Any:
    def f(x: Any) -> _tx.PrimExpr:
        x = _tx.const(x)
        return _tx.Call(x.dtype, f"tir.{op}", (x,))
    f.__name__ = op
    return f


exp, log, sqrt, tanh, sigmoid, erf, rsqrt = (_math(n) for n in (
    "exp", "log", "sqrt", "tanh", "sigmoid", "erf", "rsqrt"))
abs, floor, ceil, round = (_math(n) for n in ("abs", "floor", "ceil", "round"))  # noqa: A001


def if_then_else(cond: Any, t: Any, f: Any) -> _tx.PrimExpr:
    t, f = _tx._as_operands(t, f)
    return _tx.Call(t.dtype, "tir.if_then_else", (cond, t, f))


def max_value(dtype: str) -> _tx.PrimExpr:
    """The largest value of `dtype`; for floats the largest finite one, as TVM (reductions
    still start from -inf/+inf, so a max over -inf values stays -inf, as numpy's)."""
    if dtype.startswith("float"):
        import numpy as _np

        return _tx.FloatImm(dtype, float(_np.finfo(dtype).max))
    from .prim_func import identity

    return identity("min", dtype)


def min_value(dtype: str) -> _tx.PrimExpr:
    """The smallest value of `dtype` (the most negative finite float, as TVM)."""
    if dtype.startswith("float"):
        import numpy as _np

        return _tx.FloatImm(dtype, float(_np.finfo(dtype).min))
    from .prim_func import identity

    return identity("max", dtype)


__all__ = [
    "AxisVar", "ComputeOp", "LoopNest", "loop_nest", "PlaceholderOp", "Reduce", "Tensor", "compute",
    "with_epilogue",
    "create_prim_func",
    "placeholder", "reduce_axis", "sum", "max", "min", "prod", "var", "size_var", "const", "exp",
    "log", "sqrt", "tanh", "sigmoid", "erf", "rsqrt", "abs", "floor", "ceil", "round",
    "if_then_else", "max_value", "min_value",
    "tag_scope", "CommReducer", "acos", "acosh", "all", "any", "asin", "asinh", "atan", "atanh",
    "comm_reducer", "cos", "cosh", "div", "floordiv", "floormod", "fmod", "indexdiv", "indexmod",
    "isfinite", "isinf", "isnan", "log2", "log10", "logaddexp", "nearbyint", "power", "sin", "sinh",
    "tan", "trunc", "truncdiv", "truncmod", "TensorSlice", "popcount", "thread_axis", "ExternOp",
    "extern", "extern_primfunc", "Operation", "ScanOp", "scan",
]
