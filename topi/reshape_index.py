"""The input index of TVM's plain reshape: the output index raveled, then unraveled over the
input shape in the form TVM's simplifier leaves it (`i % 24 // 12`, `i // c // b % a`)."""

from __future__ import annotations

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


def _coefficients_split(flat: tx.PrimExpr, stride: int) -> bool:
    """Whether TVM's simplifier would pull a term of `flat` out of `flat // stride` (a term
    whose constant coefficient `stride` divides): then the plain unravel is used instead."""
    if isinstance(flat, tx.BinOp) and flat.op is B.ADD:
        return _coefficients_split(flat.a, stride) or _coefficients_split(flat.b, stride)
    if isinstance(flat, tx.BinOp) and flat.op is B.MUL and _int(flat.b) is not None:
        return stride > 1 and _int(flat.b) % stride == 0  # type: ignore[operator]
    return False


def _vanishes_under_last_mod(flat: tx.PrimExpr, last: int) -> bool:
    """Whether a term of `flat` has a coefficient `last` divides (`i0 * 3` in `flat % 3`):
    TVM's simplifier drops it there."""
    terms = _linear_terms(flat)
    return last > 1 and terms is not None and any(k % last == 0 for _, k in terms)


def unravel_plain(flat: tx.PrimExpr, shape: tuple[tx.PrimExpr, ...]
                  ) -> tuple[tx.PrimExpr, ...] | None:
    """Per input dim: 0 for a unit dim, `flat % d` for the last, `flat % (s * d) // s` where
    s is the product of the later dims (static shapes); `flat // c // b % a` when symbolic.
    None when TVM's simplifier would rewrite the index further."""
    dims = [_int(d) for d in shape]
    if all(d is not None for d in dims):
        if any(_coefficients_split(flat, s) for s in _strides(dims)) or \
                _vanishes_under_last_mod(flat, dims[-1]):
            return _unravel_split(flat, dims)
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


def _strides(dims: list[Any]) -> list[int]:
    out, stride = [], 1
    for d in reversed(dims):
        out.append(stride)
        stride *= d
    return out


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


def _unravel_split(flat: tx.PrimExpr, dims: list[Any]) -> tuple[tx.PrimExpr, ...] | None:
    """The unravel TVM's simplifier leaves when a term's coefficient is a multiple of a dim's
    stride s: under `% (s * d)` terms whose coefficient it divides vanish, and
    `(k * s * v + rest) % (s * d) // s` becomes `(rest // s + k * v) % d`."""
    terms = _linear_terms(flat)
    if terms is None:
        return None
    c, out, stride = tx.const, [], 1
    for d in reversed(dims):
        m = stride * d
        live = [(v, k) for v, k in terms if k % m]
        if d == 1:
            out.append(c(0, "int64"))
        elif stride == 1:
            out.append(_sum(live) % c(d, "int64"))
        else:
            big = [(v, k // stride) for v, k in live if k % stride == 0]
            small = [(v, k) for v, k in live if k % stride]
            if not big:
                out.append(tx.binop(B.FLOORDIV, _sum(small) % c(m, "int64"), c(stride, "int64")))
            else:
                head = [tx.binop(B.FLOORDIV, _sum(small), c(stride, "int64"))] if small else []
                total = head[0] + _sum(big) if head else _sum(big)
                out.append(total % c(d, "int64"))
        stride = m
    return tuple(reversed(out))
