"""The input index of TVM's plain reshape: the output index raveled, then unraveled over the
input shape in the form TVM's simplifier leaves it (`i % 24 // 12`, `i // c // b % a`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tir import expr as tx

B = tx.BinaryOp


def _int(d: Any) -> int | None:
    return d.value if isinstance(d, tx.IntImm) else None


def _factors(d: tx.PrimExpr) -> list[tx.PrimExpr]:
    """`b * 2` as [b, 2]: a product's factors, so `i * (b * 2)` is written `i * b * 2`."""
    if isinstance(d, tx.BinOp) and d.op is B.MUL:
        return _factors(d.a) + _factors(d.b)
    return [d]


def ravel_plain(idx: tuple[tx.PrimExpr, ...], shape: tuple[tx.PrimExpr, ...]) -> tx.PrimExpr:
    """`((i0 * d1 + i1) * d2 + i2)` with unit and constant factors folded."""
    flat: tx.PrimExpr | None = None
    for i, d in zip(idx, shape):
        if flat is not None and _int(d) != 1:
            for f in _factors(d):
                flat = flat * f
        flat = i if flat is None else flat + i
    return flat if flat is not None else tx.const(0, "int64")


def unravel_plain(flat: tx.PrimExpr, shape: tuple[tx.PrimExpr, ...]
                  ) -> tuple[tx.PrimExpr, ...] | None:
    """Per input dim: 0 for a unit dim; for static shapes TVM's sequential unravel as its
    simplifier leaves it (`_unravel_sequential`; `flat % (s * d) // s` when `flat` is not a
    sum of scaled variables); `flat // c // b % a` when symbolic."""
    dims = [_int(d) for d in shape]
    if all(d is not None for d in dims):
        terms = _linear_terms(flat)
        if terms is not None:
            return _unravel_sequential(terms, dims)  # type: ignore[arg-type]
        out, stride = [], 1
        for d in reversed(dims):
            c = tx.const
            out.append(c(0, "int64") if d == 1 else flat % c(d, "int64") if stride == 1 else
                       tx.binop(B.FLOORDIV, flat % c(stride * d, "int64"), c(stride, "int64")))
            stride *= d  # type: ignore[operator]
        return tuple(reversed(out))
    out2: list[tx.PrimExpr] = []
    rest = flat
    for k, d in enumerate(reversed(shape)):
        out2.append(rest % d)
        if k < len(shape) - 1:
            rest = tx.binop(B.FLOORDIV, rest, d)
    return tuple(reversed(out2))


def _linear_terms(flat: tx.PrimExpr) -> list[tuple[tx.PrimExpr, int]] | None:
    """`i0 * 60 + i1` as [(i0, 60), (i1, 1)] (nested products expanded); None when `flat`
    is not such a sum."""
    if isinstance(flat, tx.BinOp) and flat.op is B.ADD:
        a, b = _linear_terms(flat.a), _linear_terms(flat.b)
        return None if a is None or b is None else a + b
    if isinstance(flat, tx.BinOp) and flat.op is B.MUL and _int(flat.b) is not None:
        inner = _linear_terms(flat.a)
        k = _int(flat.b)
        return None if inner is None else [(v, c * k) for v, c in inner]  # type: ignore
    if isinstance(flat, tx.Var):
        return [(flat, 1)]
    return None


def _sum(terms: list[tuple[tx.PrimExpr, int]]) -> tx.PrimExpr:
    out: tx.PrimExpr | None = None
    for v, c in terms:
        t = v if c == 1 else v * tx.const(c, "int64")
        out = t if out is None else out + t
    return out if out is not None else tx.const(0, "int64")


# -- TVM's unravel as its canonical simplifier leaves it ------------------------------------------
# TVM takes `flat % d` for the last input dim, then `flat // d` and the next dim, and so on. Its
# simplifier splits a sum under `// c` into the terms whose coefficient c divides (divided) and
# one `(rest) // c` term; under `% d` the terms d divides vanish; `(S // c) % d` of a lone
# quotient is written `S % (c * d) // c`; and a sum prints by coefficient, largest first, a
# quotient before a plain term of the same coefficient.


@dataclass(frozen=True)
class _Quotient:
    terms: tuple[tuple[Any, int], ...]
    divisor: int


def _atom(a: Any) -> tx.PrimExpr:
    if isinstance(a, _Quotient):
        return tx.binop(B.FLOORDIV, _sorted_sum(list(a.terms)), tx.const(a.divisor, "int64"))
    return a


def _sorted_sum(terms: list[tuple[Any, int]]) -> tx.PrimExpr:
    order = sorted(range(len(terms)), key=lambda i: (
        -terms[i][1], 0 if isinstance(terms[i][0], _Quotient) else 1, i))
    return _sum([(_atom(terms[i][0]), terms[i][1]) for i in order])


def _divided(terms: list[tuple[Any, int]], c: int) -> list[tuple[Any, int]]:
    whole = [(a, k // c) for a, k in terms if k % c == 0]
    rest = [(a, k) for a, k in terms if k % c]
    if len(rest) == 1 and isinstance(rest[0][0], _Quotient) and rest[0][1] == 1:
        q = rest[0][0]  # (S // a) // c is S // (a * c)
        return [*whole, (_Quotient(q.terms, q.divisor * c), 1)]
    return [*whole, (_Quotient(tuple(rest), c), 1)] if rest else whole


def _modulo(terms: list[tuple[Any, int]], d: int) -> tx.PrimExpr:
    live = [(a, k) for a, k in terms if k % d]
    if not live:
        return tx.const(0, "int64")
    if len(live) == 1 and isinstance(live[0][0], _Quotient) and live[0][1] == 1:
        q = live[0][0]
        return tx.binop(B.FLOORDIV, _sorted_sum(list(q.terms)) % tx.const(q.divisor * d, "int64"),
                        tx.const(q.divisor, "int64"))
    return _sorted_sum(live) % tx.const(d, "int64")


def _unravel_sequential(terms: list[tuple[Any, int]], dims: list[int]
                        ) -> tuple[tx.PrimExpr, ...]:
    out: list[tx.PrimExpr] = []
    for d in reversed(dims):
        out.append(tx.const(0, "int64") if d == 1 else _modulo(terms, d))
        terms = _divided(terms, d) if d != 1 else terms
    return tuple(reversed(out))
