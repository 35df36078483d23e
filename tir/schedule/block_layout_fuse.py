"""transform_block_layout with index maps that fuse iter vars, as TVM 0.27 allows:

    lambda n, h, w, co, rh, rw, rc: (n * 12544 + h * 112 + w, co, rh * 21 + rw * 3 + rc)

Each output must be a dense mixed-radix combination of its own iter vars (each coefficient
the product of the extents inside it; all of one iter type, domains from 0); the new iter var
runs over the product of their extents and each old one is recovered the way TVM writes it:
outermost `v // 21`, middle `v % 21 // 3`, innermost `v % 3`, extent-1 vars 0.
"""

from __future__ import annotations

from typing import Any

from ..expr import BinaryOp, BinOp, IntImm, PrimExpr, Var
from ..functor import simplify
from ..stmt import IterVar
from .state import ScheduleError

_WHAT = "transform_block_layout"


def _linear(e: PrimExpr, inputs: set[Var]) -> dict[Var, int] | None:
    """`e` as {input var: integer coefficient}, None when it is not such a sum."""
    if isinstance(e, Var):
        return {e: 1} if e in inputs else None
    if not isinstance(e, BinOp):
        return None
    if e.op is BinaryOp.ADD:
        left, right = _linear(e.a, inputs), _linear(e.b, inputs)
        if left is None or right is None or set(left) & set(right):
            return None
        return {**left, **right}
    if e.op is BinaryOp.MUL:
        for term, scale in ((e.a, e.b), (e.b, e.a)):
            if isinstance(scale, IntImm):
                inner = _linear(term, inputs)
                return None if inner is None else {v: c * scale.value for v, c in inner.items()}
    return None


def fused_layout(final: list[PrimExpr], initial: list[Var], ivs: list[IterVar],
                 block_name: str) -> tuple[list[tuple[int, Any]], dict[Var, Any]] | None:
    """For each output: (its extent, its iter type), and for each input position's var the
    function of the new vars giving it; None if an output is not a dense combination."""
    extent_of, iv_of = {}, {}
    for var, iv in zip(initial, ivs):
        ext = simplify(iv.dom.extent)
        if not isinstance(ext, IntImm) or not (isinstance(iv.dom.min, IntImm)
                                                and iv.dom.min.value == 0):
            return None
        extent_of[var], iv_of[var] = ext.value, iv
    groups = [_linear(e, set(initial)) for e in final]
    used = [v for g in groups if g is not None for v in g]
    if any(g is None or not g for g in groups) or sorted(map(id, used)) != sorted(
            map(id, initial)):
        return None
    outs, recover = [], {}
    for k, group in enumerate(groups):
        order = sorted(group, key=lambda v: group[v])  # innermost (coefficient 1) first
        stride = 1
        for v in order:
            if group[v] != stride and extent_of[v] != 1:
                return None
            stride *= extent_of[v]
        kinds = {iv_of[v].iter_type for v in order if extent_of[v] != 1} or {
            iv_of[order[0]].iter_type}
        if len(kinds) != 1:
            raise ScheduleError(f"{_WHAT}: output {k} of the index map mixes iter vars of "
                                f"different kinds in block {block_name!r}")
        outs.append((stride, kinds.pop()))
        recover.update(_recover(k, order, group, extent_of))
    return outs, recover


def _recover(k: int, order: list[Var], group: dict[Var, int], extent_of: dict[Var, int]
             ) -> dict[Var, Any]:
    """Old var -> (k, divisor, modulus) of new var k: value = v % modulus // divisor."""
    live = [v for v in order if extent_of[v] != 1]
    out: dict[Var, Any] = {v: None for v in order if extent_of[v] == 1}  # None: 0
    for pos, v in enumerate(live):
        outermost = pos == len(live) - 1
        modulus = None if outermost else group[v] * extent_of[v]
        out[v] = (k, group[v], modulus)
    return out


def recovered_value(spec: Any, new_vars: list[Var], dtype: str) -> PrimExpr:
    if spec is None:
        return IntImm(dtype, 0)
    k, divisor, modulus = spec
    value: PrimExpr = new_vars[k]
    if modulus is not None:
        value = value % IntImm(dtype, modulus)
    if divisor != 1:
        value = value // IntImm(dtype, divisor)
    return value
