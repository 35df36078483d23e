"""Floor division and modulo of a split block iter var, folded onto the split's loops.

A block iter var bound to `outer * c + inner` (a split: `inner` a loop var over [0, e), e <= c)
or to a lone loop var over [0, e) is, divided by c, exactly `outer` (or 0), and modulo c
exactly `inner`. A body reading a blocked layout through the unsplit index
(`Bp[v_j // 32, v_k, v_j % 32]`, a packed matmul panel) then reads `Bp[j_o, k, j_i]`: a
vectorized `j_i` is a contiguous vector instead of a gather of 32 lanes. The generic simplifier
knows nothing of loop ranges, so the block lowering asks here with the loops around the block.
"""

from __future__ import annotations

from .expr import BinaryOp, BinOp, IntImm, PrimExpr, Var, const
from .functor import Mutator

# iter var -> (outer part or None, inner loop var, the outer part's factor, else the inner
# loop's extent): the iter var's value is in [factor * outer, factor * outer + factor)
Parts = dict[Var, tuple[PrimExpr | None, Var, int]]


def split_parts(vmap: dict[Var, PrimExpr], loops: dict[Var, int]) -> Parts:
    """The iter vars of `vmap` bound to a split of the loops `loops` (loop var -> constant
    extent, for loops starting at 0)."""
    parts: Parts = {}
    for iv, value in vmap.items():
        if isinstance(value, Var) and value in loops:
            parts[iv] = (None, value, loops[value])
        elif (isinstance(value, BinOp) and value.op is BinaryOp.ADD
              and isinstance(value.b, Var) and value.b in loops
              and isinstance(value.a, BinOp) and value.a.op is BinaryOp.MUL
              and isinstance(value.a.b, IntImm) and loops[value.b] <= value.a.b.value):
            parts[iv] = (value.a.a, value.b, value.a.b.value)
    return parts


class SplitIndexFolder(Mutator):
    """Rewrites `v // c` and `floormod(v, c)` of the split iter vars in `parts` (before the
    iter vars are substituted by their values)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        if e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD) and isinstance(e.b, IntImm) \
                and isinstance(e.a, Var) and e.a in self.parts:
            outer, inner, factor = self.parts[e.a]
            c = e.b.value
            if outer is None and factor <= c:  # v in [0, c)
                return const(0, e.dtype) if e.op is BinaryOp.FLOORDIV else inner
            if outer is not None and c == factor:
                return outer if e.op is BinaryOp.FLOORDIV else inner
        return self.generic_visit(e)
