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


def unravel_plain(flat: tx.PrimExpr, shape: tuple[tx.PrimExpr, ...]
                  ) -> tuple[tx.PrimExpr, ...] | None:
    """Per input dim: 0 for a unit dim, `flat % d` for the last, `flat % (s * d) // s` where
    s is the product of the later dims (static shapes); `flat // c // b % a` when symbolic.
    None when TVM's simplifier would rewrite the index further."""
    dims = [_int(d) for d in shape]
    if all(d is not None for d in dims):
        out, stride = [], 1
        for d in reversed(dims):
            if _coefficients_split(flat, stride):
                return None
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
