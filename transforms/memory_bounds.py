"""Bounds of symbolic dims for memory planning: a function's `tir_var_upper_bound` /
`tir_var_lower_bound` attributes, and the largest value a dim expression can take under them."""

from __future__ import annotations

from typing import Any

from ..ir import expr as rx
from ..tir import expr as tx

_Bounds = dict[str, tuple[int, int | None]]  # var name -> (lowest, highest or unbounded)
_ATTRS = ("tir_var_lower_bound", "tir_var_upper_bound")


def _bound_map(func: rx.Function, attr: str) -> dict[str, int]:
    given = func.attr_dict.get(attr)
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise TypeError(f"the {attr!r} attribute maps symbolic var names to ints, not "
                        f"{given!r}")
    out = {}
    for name, value in given.items():
        value = getattr(value, "value", value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"the {attr!r} attribute gives {name!r} the bound {value!r}: "
                            "bounds are ints")
        out[str(getattr(name, "value", name))] = value
    return out


def symbolic_var_bounds(func: rx.Function) -> _Bounds:
    """Each bounded var's (lower, upper) bound; shape vars are never below 0."""
    lower, upper = (_bound_map(func, a) for a in _ATTRS)
    return {name: (lower.get(name, 0), upper.get(name))
            for name in set(lower) | set(upper)}


def _interval(e: Any, bounds: _Bounds) -> tuple[int | None, int | None]:
    if isinstance(e, tx.IntImm):
        return e.value, e.value
    if isinstance(e, tx.Var):
        return bounds.get(e.name, (0, None))
    if not isinstance(e, tx.BinOp):
        return None, None
    (alo, ahi), (blo, bhi) = _interval(e.a, bounds), _interval(e.b, bounds)
    return _combine(e.op, alo, ahi, blo, bhi)


def _add(x: int | None, y: int | None) -> int | None:
    return None if x is None or y is None else x + y


def _combine(op: tx.BinaryOp, alo: Any, ahi: Any, blo: Any, bhi: Any
             ) -> tuple[int | None, int | None]:
    ops = tx.BinaryOp
    if op is ops.ADD:
        return _add(alo, blo), _add(ahi, bhi)
    if op is ops.SUB:
        return _add(alo, None if bhi is None else -bhi), _add(ahi, None if blo is None else -blo)
    if op is ops.MAX:
        return (None if alo is None or blo is None else max(alo, blo),
                None if ahi is None or bhi is None else max(ahi, bhi))
    if op is ops.MIN:
        lo = None if alo is None or blo is None else min(alo, blo)
        his = [h for h in (ahi, bhi) if h is not None]
        return lo, min(his) if his else None
    nonneg = alo is not None and blo is not None and alo >= 0 and blo >= 0
    if op is ops.MUL and nonneg:
        return alo * blo, None if ahi is None or bhi is None else ahi * bhi
    if op is ops.FLOORDIV and nonneg and blo == bhi and blo > 0:
        return alo // blo, None if ahi is None else ahi // blo
    return None, None


def dim_upper_bound(dim: tx.PrimExpr, bounds: _Bounds) -> tx.PrimExpr:
    """`dim` as the constant it is at most, where the bounds fix one; else `dim` itself."""
    if isinstance(dim, tx.IntImm) or not bounds:
        return dim
    _, hi = _interval(dim, bounds)
    return dim if hi is None else tx.IntImm("int64", hi)
