"""Index arithmetic for scheduling and buffer compaction: affine forms and their bounds.

`affine(e, vars)` writes an index expression as `sum(c_v * v) + base`, where the `vars` have
integer coefficients and `base` mentions none of them; `bound(e, ranges)` gives a
`[min, min + extent)` window holding every value `e` takes while each ranged var sweeps its
range: `min` is an expression in the other (outer) vars, `extent` an int. `x // c` and `x % c`
(a fused loop split again, a thread index spread over a tile) are bounded when `x` sweeps a
window with a constant start; they count as new independent vars, so the window may be a little
wider than the exact one, never narrower. Other non-affine uses of a ranged var (`v * w`) make
`bound` return None and callers fall back to whole dims, as TVM's analysis does when it cannot
do better. `union_windows` joins windows whose starts differ by constants
(`A[i]`, `A[i + 1]`, `A[i + 2]` -> `[i, i + 3)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .expr import BinaryOp, BinOp, Cast, IntImm, PrimExpr, Var, const
from .function import expr_fields
from .functor import Mutator, simplify

Window = tuple[PrimExpr, int]  # (min, extent)


@dataclass(frozen=True)
class Affine:
    coeffs: dict[Var, int]
    base: PrimExpr


def _uses_any(e: PrimExpr, vars_: set[Var]) -> bool:
    """Does `e` use one of `vars_`? (stops at the first one found)"""
    stack: list[Any] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            if x in vars_:
                return True
        elif isinstance(x, PrimExpr):
            for name in expr_fields(x.__class__):
                child = getattr(x, name)
                if isinstance(child, tuple):
                    stack.extend(child)
                else:
                    stack.append(child)
    return False


def _uses_memo(e: Any, vars_: set[Var], memo: dict[int, bool]) -> bool:
    """`_uses_any(e, vars_)`, remembered per node of the expression `affine` takes apart: each
    level of its recursion asks again of the level below (a walk per level, before)."""
    cls = e.__class__
    if cls is Var:
        return e in vars_
    if cls is IntImm:
        return False
    if cls is not BinOp and cls is not Cast:
        return _uses_any(e, vars_)
    hit = memo.get(id(e))
    if hit is None:
        hit = memo[id(e)] = (_uses_memo(e.a, vars_, memo) or _uses_memo(e.b, vars_, memo)
                             if cls is BinOp else _uses_memo(e.value, vars_, memo))
    return hit


def affine(e: PrimExpr, vars_: set[Var]) -> Affine | None:
    """`e` as integer-linear in `vars_` plus a base free of them, or None."""
    return _affine(e, vars_, {})


def _affine(e: PrimExpr, vars_: set[Var], uses: dict[int, bool]) -> Affine | None:
    if not _uses_memo(e, vars_, uses):
        return Affine({}, e)
    if isinstance(e, Var):
        return Affine({e: 1}, IntImm(e.dtype, 0))
    if isinstance(e, Cast) and e.dtype.startswith("int") and e.value.dtype.startswith("int"):
        inner = _affine(e.value, vars_, uses)
        return None if inner is None else Affine(inner.coeffs, Cast(e.dtype, inner.base))
    if not isinstance(e, BinOp):
        return None
    if e.op in (BinaryOp.ADD, BinaryOp.SUB):
        a, b = _affine(e.a, vars_, uses), _affine(e.b, vars_, uses)
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
                inner = _affine(x, vars_, uses)
                if inner is None:
                    return None
                return Affine({v: c * k.value for v, c in inner.coeffs.items()},
                              simplify(inner.base * k.value))
    return None


def bound(e: PrimExpr, ranges: dict[Var, tuple[PrimExpr, int]]) -> Window | None:
    """A window `(min, extent)` holding `e` over `ranges` (var -> (min, extent)), or None."""
    ranges = dict(ranges)
    e = _DivModAsVars(ranges).visit(e)
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


class _DivModAsVars(Mutator):
    """Replaces `x // c` and `x % c` (c > 0, x sweeping a window that starts at a constant) by
    fresh vars ranging over the quotients / remainders, added to `ranges`."""

    def __init__(self, ranges: dict[Var, tuple[PrimExpr, int]]) -> None:
        self.ranges = ranges

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        e = self.generic_visit(e)
        div = e.op in (BinaryOp.FLOORDIV, BinaryOp.DIV)
        if not (div or e.op in (BinaryOp.FLOORMOD, BinaryOp.MOD)):
            return e
        c = simplify(e.b)
        if not (isinstance(c, IntImm) and c.value > 0 and _uses_any(e.a, set(self.ranges))):
            return e
        inner = bound(e.a, self.ranges)
        first = inner and simplify(inner[0])
        if inner is not None and e.op is BinaryOp.FLOORDIV and not isinstance(first, IntImm):
            # a window [s, s + n - 1] with a symbolic start s: its quotients start at s // c
            # and span at most ceil((n - 1) / c) + 1 values, whatever s is
            var = Var(f"q{len(self.ranges)}", e.dtype)
            self.ranges[var] = (simplify(BinOp(BinaryOp.FLOORDIV, first, c)),
                                -(-(inner[1] - 1) // c.value) + 1)
            return var
        if not isinstance(first, IntImm) or (first.value < 0 and not e.op.name.startswith("FLOOR")):
            return e  # a symbolic start, or truncating division of negatives: not bounded
        lo, hi = first.value, first.value + inner[1] - 1  # type: ignore[index]
        if div:
            window = (lo // c.value, hi // c.value - lo // c.value + 1)
        elif lo // c.value == hi // c.value:  # no wrap-around: the remainders are contiguous
            window = (lo % c.value, hi - lo + 1)
        else:
            window = (0, c.value)
        var = Var(f"{'q' if div else 'r'}{len(self.ranges)}", e.dtype)
        self.ranges[var] = (IntImm(e.dtype, window[0]), window[1])
        return var


def union_windows(windows: list[Window | None]) -> Window | None:
    """The smallest window holding all `windows` when their starts differ by constants."""
    if not windows or any(w is None for w in windows):
        return None
    lo0 = windows[0][0]  # type: ignore[index]
    offsets = []
    for lo, _ in windows:  # type: ignore[misc]
        diff = constant_difference(lo, lo0)
        if diff is None:
            return None
        offsets.append(diff)
    first = min(offsets)
    end = max(off + w[1] for off, w in zip(offsets, windows))  # type: ignore[index]
    start = lo0 if first == 0 else simplify(lo0 + const(first, lo0.dtype))
    return start, end - first


def constant_difference(a: PrimExpr, b: PrimExpr) -> int | None:
    """`a - b` when it is the same constant for all values of the vars, else None."""
    if a == b:
        return 0
    if a.dtype != b.dtype:
        return None
    from .function import free_vars

    diff = a - b
    form = affine(diff, set(free_vars(diff)))
    return int_value(form.base) if form is not None and not form.coeffs else None


def subtract(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    """`a - b`, cancelling `b`'s summands that `a` has (`i * 64 + t * 8 + k` minus `i * 64`
    is `t * 8 + k`), so rebased indices read as TVM prints them."""
    terms, gone = _summands(a), _summands(b)
    rest = list(terms)
    for t in gone:
        hit = next((k for k, r in enumerate(rest) if r == t), None)
        if hit is None:
            return simplify(a - b)
        del rest[hit]
    if not rest:
        return IntImm(a.dtype, 0)
    out = rest[0]
    for t in rest[1:]:
        out = out + t
    return simplify(out)


def _summands(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.ADD:
        return _summands(e.a) + _summands(e.b)
    return [e]


def int_value(e: PrimExpr) -> int | None:
    e = simplify(e)
    return e.value if isinstance(e, IntImm) else None
