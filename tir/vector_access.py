"""Which vectorized loops are one wide load and store: `for v in T.vectorized(L)` over
`dst[i] = src[j]` where both flat indices are `base + v` with `base` a multiple of L.

The CUDA backend turns such a loop into `*(float4*)(dst + base) = *(float4*)(src + base')`,
TVM's vectorized cooperative fetch. Indices after lowering read like
`(x // 8) * 8 + x % 8` with `x = f * 256 + t * 4 + v`, so `lane_base` knows the one fact
that makes them contiguous: when `b` is a multiple of L, L divides d and 0 <= v < L,
`(b + v) // d == b // d` and `(b + v) % d == b % d + v` (the lanes never cross a multiple of
d). Anything it cannot prove stays a scalar loop.
"""

from __future__ import annotations

from .expr import BinaryOp, BinOp, Cast, IntImm, PrimExpr, Var
from .function import free_vars
from .functor import simplify

_DIVS = (BinaryOp.FLOORDIV, BinaryOp.DIV)
_MODS = (BinaryOp.FLOORMOD, BinaryOp.MOD)


def lane_base(index: PrimExpr, v: Var, lanes: int) -> PrimExpr | None:
    """`base` when `index == base + v` for every lane v in [0, lanes) and `base` is provably a
    multiple of `lanes`; else None."""
    form = _lane(index, v, lanes)
    if form is None or form[1] != 1 or not multiple_of(form[0], lanes):
        return None
    return simplify(form[0])


def _lane(e: PrimExpr, v: Var, lanes: int) -> tuple[PrimExpr, int] | None:
    """`(b, k)` with `e == b + k * v` over the lanes and `b` free of v, or None."""
    if v not in free_vars(e):
        return e, 0
    if e is v or e == v:
        return IntImm(v.dtype, 0), 1
    if isinstance(e, Cast) and e.dtype.startswith("int"):
        inner = _lane(e.value, v, lanes)
        return None if inner is None else (Cast(e.dtype, inner[0]), inner[1])
    if not isinstance(e, BinOp):
        return None
    if e.op in (BinaryOp.ADD, BinaryOp.SUB):
        a, b = _lane(e.a, v, lanes), _lane(e.b, v, lanes)
        if a is None or b is None:
            return None
        sign = 1 if e.op is BinaryOp.ADD else -1
        return BinOp(e.op, a[0], b[0]), a[1] + sign * b[1]
    c = simplify(e.b)
    if not isinstance(c, IntImm) or c.value <= 0:
        return None
    x = _lane(e.a, v, lanes)
    if x is None:
        return None
    if e.op is BinaryOp.MUL:
        return BinOp(BinaryOp.MUL, x[0], c), x[1] * c.value
    whole_lanes = x[1] == 1 and c.value % lanes == 0 and multiple_of(x[0], lanes)
    if e.op in _DIVS and whole_lanes:
        return BinOp(e.op, x[0], c), 0
    if e.op in _MODS and whole_lanes:
        return BinOp(e.op, x[0], c), 1
    return None


def multiple_of(e: PrimExpr, n: int) -> bool:
    """Is `e` a multiple of `n` for all values of its variables (a sufficient check)?"""
    if isinstance(e, IntImm):
        return e.value % n == 0
    if isinstance(e, Cast):
        return multiple_of(e.value, n)
    if not isinstance(e, BinOp):
        return False
    if e.op in (BinaryOp.ADD, BinaryOp.SUB):
        return multiple_of(e.a, n) and multiple_of(e.b, n)
    if e.op is BinaryOp.MUL:
        return multiple_of(e.a, n) or multiple_of(e.b, n)
    if e.op in _MODS:  # x % d keeps x's residue modulo n when n divides d
        d = simplify(e.b)
        return isinstance(d, IntImm) and d.value % n == 0 and multiple_of(e.a, n)
    return False
