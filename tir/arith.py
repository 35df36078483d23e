"""Index arithmetic for scheduling and buffer compaction: affine forms and their bounds.

`affine(e, vars)` writes an index expression as `sum(c_v * v) + base`, where the `vars` have
integer coefficients and `base` mentions none of them; `bound(e, ranges)` gives the smallest
`[min, min + extent)` window `e` takes while each ranged var sweeps its range: `min` is an
expression in the other (outer) vars, `extent` an int. Non-affine uses of a ranged var (`v * w`,
`v // 4` after a fuse) make both return None and callers fall back to whole dims, as TVM's
analysis does when it cannot do better.
"""

from __future__ import annotations

from dataclasses import dataclass

from .expr import BinaryOp, BinOp, Cast, IntImm, PrimExpr, Var, const
from .functor import simplify


@dataclass(frozen=True)
class Affine:
    coeffs: dict[Var, int]
    base: PrimExpr


def _uses_any(e: PrimExpr, vars_: set[Var]) -> bool:
    from .function import free_vars

    return any(v in vars_ for v in free_vars(e))


def affine(e: PrimExpr, vars_: set[Var]) -> Affine | None:
    """`e` as integer-linear in `vars_` plus a base free of them, or None."""
    if not _uses_any(e, vars_):
        return Affine({}, e)
    if isinstance(e, Var):
        return Affine({e: 1}, IntImm(e.dtype, 0))
    if isinstance(e, Cast) and e.dtype.startswith("int") and e.value.dtype.startswith("int"):
        inner = affine(e.value, vars_)
        return None if inner is None else Affine(inner.coeffs, Cast(e.dtype, inner.base))
    if not isinstance(e, BinOp):
        return None
    if e.op in (BinaryOp.ADD, BinaryOp.SUB):
        a, b = affine(e.a, vars_), affine(e.b, vars_)
        if a is None or b is None:
            return None
        sign = 1 if e.op is BinaryOp.ADD else -1
        coeffs = dict(a.coeffs)
        for v, c in b.coeffs.items():
            coeffs[v] = coeffs.get(v, 0) + sign * c
        base = a.base + b.base if sign == 1 else a.base - b.base
        return Affine({v: c for v, c in coeffs.items() if c}, simplify(base))
    if e.op is BinaryOp.MUL:
        for x, k in ((e.a, e.b), (e.b, e.a)):
            k = simplify(k)
            if isinstance(k, IntImm):
                inner = affine(x, vars_)
                if inner is None:
                    return None
                return Affine({v: c * k.value for v, c in inner.coeffs.items()},
                              simplify(inner.base * k.value))
    return None


def bound(e: PrimExpr, ranges: dict[Var, tuple[PrimExpr, int]]) -> tuple[PrimExpr, int] | None:
    """The window `(min, extent)` of `e` over `ranges` (var -> (min, extent)), or None."""
    form = affine(e, set(ranges))
    if form is None:
        return None
    lo = form.base
    extent = 1
    for v, c in form.coeffs.items():
        vmin, n = ranges[v]
        if n <= 0:
            return None
        extent += abs(c) * (n - 1)
        start = vmin if c > 0 else simplify(vmin + const(n - 1, vmin.dtype))
        lo = lo + simplify(start * c) if lo.dtype == start.dtype else lo + Cast(lo.dtype, start * c)
    return simplify(lo), extent


def int_value(e: PrimExpr) -> int | None:
    e = simplify(e)
    return e.value if isinstance(e, IntImm) else None
