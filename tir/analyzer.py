"""`tvm.arith.Analyzer` (`tvm.sym.Analyzer` in TVM 0.27): integer facts about index expressions.

Built on the affine forms of tir/arith.py: an expression linear in its variables is rebuilt in
canonical order (`x*2 + x*3 - x*5 + 4` is `4`), its bounds follow from the ranges bound to
its variables (`bind(x, Range(0, 10))`), and comparisons are proved from those bounds. What is
not linear is left to the ordinary simplifier, and what cannot be proved is reported as not
proved (`can_prove` False), never guessed.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from .arith import affine, bound
from .expr import BinaryOp, BinOp, IntImm, PrimExpr, Var, const
from .function import free_vars
from .functor import Mutator, simplify, substitute
from .stmt import Range

POS_INF = 2 ** 63 - 1  # TVM's ConstIntBound.POS_INF / NEG_INF
NEG_INF = -POS_INF


@dataclass(frozen=True)
class ConstIntBound:
    min_value: int
    max_value: int
    POS_INF = POS_INF
    NEG_INF = NEG_INF


@dataclass(frozen=True)
class ModularSet:
    """Every value is `coeff * k + base` for some integer k (coeff 0: the constant base)."""
    coeff: int
    base: int


@dataclass(frozen=True)
class IntervalSet:
    min_value: PrimExpr
    max_value: PrimExpr


class Analyzer:
    def __init__(self) -> None:
        self._ranges: dict[Var, tuple[PrimExpr, int]] = {}
        self._values: dict[Var, PrimExpr] = {}

    # -- facts ----------------------------------------------------------------------------

    def bind(self, var: Var, value: Any, allow_override: bool = False) -> None:
        """`var` equals `value` (an expression), or ranges over `value` (a Range)."""
        if isinstance(value, Range):
            lo, ext = simplify(value.min), simplify(value.extent)
            if isinstance(ext, IntImm):
                self._ranges[var] = (lo, ext.value)
                return
            raise ValueError(f"Analyzer.bind: the range of {var.name} needs a constant extent")
        self._values[var] = _expr(value, var.dtype)

    def update(self, var: Var, info: ConstIntBound, override: bool = False) -> None:
        self._ranges[var] = (const(info.min_value, var.dtype),
                             info.max_value - info.min_value + 1)

    @contextmanager
    def constraint_scope(self, constraint: PrimExpr) -> Iterator[None]:
        """Within the `with`, the constraint's simple bounds (`v < c`, `v >= c`, joined by
        `and`) narrow the ranges of their vars."""
        saved = dict(self._ranges)
        for v, lo, hi in _var_bounds(simplify(constraint)):
            old_lo, old_hi = self._var_interval(v)
            lo, hi = max(lo, old_lo), min(hi, old_hi)
            if lo > NEG_INF and hi < POS_INF and hi >= lo:
                self._ranges[v] = (const(lo, v.dtype), hi - lo + 1)
        try:
            yield
        finally:
            self._ranges = saved

    # -- queries --------------------------------------------------------------------------

    def simplify(self, expr: Any, steps: int = 2) -> PrimExpr:
        e = _expr(expr)
        if self._values:
            e = substitute(e, self._values)
        e = simplify(e)
        if self._ranges:
            e = simplify(_DivModInRange(self._ranges).visit(e))
        return _canonical(e)

    canonical_simplify = simplify
    rewrite_simplify = simplify

    def const_int_bound(self, expr: Any) -> ConstIntBound:
        e = self.simplify(expr)
        if isinstance(e, IntImm):
            return ConstIntBound(e.value, e.value)
        ranges = {v: r for v, r in self._ranges.items() if v in _free_vars(e)}
        unbound = _free_vars(e) - set(ranges)
        window = None if unbound else bound(e, ranges)
        lo = window and simplify(window[0])
        if isinstance(lo, IntImm):
            return ConstIntBound(lo.value, lo.value + window[1] - 1)  # type: ignore[index]
        return ConstIntBound(NEG_INF, POS_INF)

    def int_set(self, expr: Any, dom_map: dict[Var, Any] | None = None) -> IntervalSet:
        b = self.const_int_bound(expr)
        return IntervalSet(const(b.min_value), const(b.max_value))

    def modular_set(self, expr: Any) -> ModularSet:
        e = self.simplify(expr)
        free = _free_vars(e)
        form = affine(e, free)
        if form is None or not isinstance(simplify(form.base), IntImm):
            return ModularSet(1, 0)
        base = simplify(form.base).value
        coeff = math.gcd(*form.coeffs.values()) if form.coeffs else 0
        return ModularSet(coeff, base % coeff if coeff else base)

    def can_prove(self, cond: Any, strength: Any = None) -> bool:
        c = self.simplify(cond)
        if isinstance(c, IntImm):
            return bool(c.value)
        if not isinstance(c, BinOp):
            return False
        if c.op is BinaryOp.AND:
            return self.can_prove(c.a) and self.can_prove(c.b)
        if c.op is BinaryOp.OR:
            return self.can_prove(c.a) or self.can_prove(c.b)
        test = _DIFFERENCE_TESTS.get(c.op)
        if test is None:
            return False
        d = self.const_int_bound(c.a - c.b)
        return test(d.min_value, d.max_value)

    def can_prove_equal(self, lhs: Any, rhs: Any) -> bool:
        d = self.const_int_bound(_expr(lhs) - _expr(rhs))
        return d.min_value == d.max_value == 0

    def _var_interval(self, v: Var) -> tuple[int, int]:
        r = self._ranges.get(v)
        if r is None or not isinstance(r[0], IntImm):
            return NEG_INF, POS_INF
        return r[0].value, r[0].value + r[1] - 1


# (min, max) of `a - b` -> whether `a op b` holds for all values
_DIFFERENCE_TESTS = {
    BinaryOp.LT: lambda lo, hi: hi < 0 and hi != POS_INF,
    BinaryOp.LE: lambda lo, hi: hi <= 0 and hi != POS_INF,
    BinaryOp.GT: lambda lo, hi: lo > 0 and lo != NEG_INF,
    BinaryOp.GE: lambda lo, hi: lo >= 0 and lo != NEG_INF,
    BinaryOp.EQ: lambda lo, hi: lo == hi == 0,
    BinaryOp.NE: lambda lo, hi: (lo > 0 and lo != NEG_INF) or (hi < 0 and hi != POS_INF),
}


class _DivModInRange(Mutator):
    """`x // c` and `x % c` (c > 0) where the bound vars pin the quotient: x split as
    `c * q + r`, q the terms whose coefficients c divides, r the rest plus the constant; when
    r stays within one block [k * c, k * c + c) over the ranges, `x // c` is `q + k` and
    `x % c` is `r - k * c` (`(i * 4 + j) // 4` is i for j in [0, 4), as TVM's analyzer)."""

    def __init__(self, ranges: dict[Var, tuple[PrimExpr, int]]) -> None:
        self.ranges = ranges

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        e = self.generic_visit(e)
        if e.op not in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD) or not isinstance(e.b, IntImm) \
                or e.b.value <= 0 or not e.dtype.startswith(("int", "uint")):
            return e
        c = e.b.value
        form = affine(e.a, set(self.ranges))
        base = None if form is None else simplify(form.base)
        if not isinstance(base, IntImm):
            return e
        dtype = e.dtype
        q: PrimExpr = IntImm(dtype, 0)
        rest: PrimExpr = IntImm(dtype, base.value)
        for v, k in form.coeffs.items():  # type: ignore[union-attr]
            if k % c == 0:
                q = q + (v if k == c else v * const(k // c, dtype))
            else:
                rest = rest + (v if k == 1 else v * const(k, dtype))
        window = bound(simplify(rest), {v: r for v, r in self.ranges.items()
                                        if v in _free_vars(rest)})
        lo = window and simplify(window[0])
        if not isinstance(lo, IntImm) or (set(_free_vars(rest)) - set(self.ranges)):
            return e
        block = lo.value // c
        if (lo.value + window[1] - 1) // c != block:  # type: ignore[index]
            return e
        if e.op is BinaryOp.FLOORDIV:
            return simplify(q + const(block, dtype))
        return simplify(rest - const(block * c, dtype))


def _expr(value: Any, dtype: str = "int32") -> PrimExpr:
    return value if isinstance(value, PrimExpr) else const(value, dtype)


def _free_vars(e: PrimExpr) -> set[Var]:
    return set(free_vars(e))


def _canonical(e: PrimExpr) -> PrimExpr:
    """An integer expression linear in its vars as `sum(v * c) + base`, each var once, in
    order of first appearance; anything else unchanged."""
    if not isinstance(e, BinOp) or not e.dtype.startswith(("int", "uint")):
        return e
    order = free_vars(e)  # in order of first appearance
    form = affine(e, set(order))
    if form is None:
        return e
    out: PrimExpr | None = None
    for v in order:
        c = form.coeffs.get(v, 0)
        if c:
            term = v if c == 1 else v * const(c, e.dtype)
            out = term if out is None else out + term
    base = simplify(form.base)
    if out is None:
        return base
    return out if isinstance(base, IntImm) and base.value == 0 else simplify(out + base)


def _var_bounds(c: PrimExpr) -> list[tuple[Var, int, int]]:
    """Simple bounds `v op c` in a conjunction, as (v, lo, hi)."""
    if isinstance(c, BinOp) and c.op is BinaryOp.AND:
        return _var_bounds(c.a) + _var_bounds(c.b)
    if not (isinstance(c, BinOp) and isinstance(c.a, Var) and isinstance(c.b, IntImm)):
        return []
    v, k = c.a, c.b.value
    return {BinaryOp.LT: [(v, NEG_INF, k - 1)], BinaryOp.LE: [(v, NEG_INF, k)],
            BinaryOp.GT: [(v, k + 1, POS_INF)], BinaryOp.GE: [(v, k, POS_INF)],
            BinaryOp.EQ: [(v, k, k)]}.get(c.op, [])
