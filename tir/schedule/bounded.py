"""Folding divisions by what the iter vars' domains tell, as TVM's analyzer does."""

from __future__ import annotations

from typing import Any

from ..expr import BinaryOp, BinOp, IntImm, PrimExpr
from ..functor import Mutator


class BoundedDivision(Mutator):
    """`x // c` is 0 and `x % c` is x where x is known to lie in [0, c); the zeros this
    makes fold away (`0 * 3 + rc` is rc), as TVM's analyzer folds them."""

    def __init__(self, ana: Any) -> None:
        self.ana = ana

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        e = self.generic_visit(e)
        if e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD) and isinstance(e.b, IntImm):
            bound = self.ana.const_int_bound(e.a)
            if 0 <= bound.min_value and bound.max_value < e.b.value:
                return IntImm(e.dtype, 0) if e.op is BinaryOp.FLOORDIV else e.a
        zero_a, zero_b = (isinstance(x, IntImm) and x.value == 0 for x in (e.a, e.b))
        if e.op is BinaryOp.MUL and (zero_a or zero_b):
            return IntImm(e.dtype, 0)
        if e.op is BinaryOp.ADD and (zero_a or zero_b):
            return e.b if zero_a else e.a
        return e
