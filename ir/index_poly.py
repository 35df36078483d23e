"""Index expressions as polynomials: sums of products of integer constants, variables and
buffer loads, so that two expressions are compared as the same polynomial however they are
grouped (`4 * (2 * n)` and `8 * n`; `(p[b] + i) * 768 + h * 64 + f` written two ways).
Expressions with `//`, `%`, min or max are not polynomials: `polynomial` answers None.
Casts between integer types are taken as the value they cast (index widening)."""

from __future__ import annotations

from typing import Any

from ..tir import expr as tx

Poly = dict[tuple[Any, ...], int]  # sorted atom keys of a monomial -> its coefficient

_OPS = (tx.BinaryOp.ADD, tx.BinaryOp.SUB, tx.BinaryOp.MUL)


def _atom(e: Any) -> Any:
    if isinstance(e, tx.Var):
        return ("var", id(e))
    if isinstance(e, tx.BufferLoad):
        keys = []
        for i in e.indices:
            p = polynomial(i)
            if p is None:
                return None
            keys.append(tuple(sorted(p.items(), key=repr)))
        return ("load", id(e.buffer), tuple(keys))
    return None


def polynomial(e: Any) -> Poly | None:
    """`e` as a polynomial over its variables and loads, or None when it is not one."""
    if isinstance(e, int):
        return {(): e} if e else {}
    if isinstance(e, tx.IntImm):
        return {(): e.value} if e.value else {}
    if isinstance(e, tx.Cast) and e.dtype.startswith("int") and \
            getattr(e.value, "dtype", "").startswith("int"):
        return polynomial(e.value)  # index widening (int32 -> int64) keeps the value
    atom = _atom(e)
    if atom is not None:
        return {(atom,): 1}
    if not isinstance(e, tx.BinOp) or e.op not in _OPS:
        return None
    pa, pb = polynomial(e.a), polynomial(e.b)
    if pa is None or pb is None:
        return None
    if e.op is tx.BinaryOp.MUL:
        terms = [(tuple(sorted(ma + mb, key=repr)), ca * cb) for ma, ca in pa.items()
                 for mb, cb in pb.items()]
    else:
        sign = 1 if e.op is tx.BinaryOp.ADD else -1
        terms = list(pa.items()) + [(m, sign * c) for m, c in pb.items()]
    out: Poly = {}
    for mono, coef in terms:
        out[mono] = out.get(mono, 0) + coef
    return {m: c for m, c in out.items() if c}


def provably_equal(a: Any, b: Any) -> bool | None:
    """True / False when both are polynomials (equal or not); None when either is not."""
    pa, pb = polynomial(a), polynomial(b)
    return None if pa is None or pb is None else pa == pb
