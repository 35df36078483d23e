"""OptimizeLayoutTransform (TVM's pass): a `layout_transform` that undoes the one before it
(`x` -> blocked -> flat -> blocked again) is dropped, its uses reading the earlier value, and a
`layout_transform` repeating one already bound (same input, same map) reuses it. What becomes
dead is left to DeadCodeElimination, as in TVM's pipeline."""

from __future__ import annotations

from typing import Any

import numpy as np
from ..ir import expr as rx
from ..ir.structural import structural_equal
from ..tir import expr as tx
from ..tir.functor import simplify, substitute
from ..tir.index_map import IndexMap
from .graph_rewrites import DROP, BlockRewriter, expr_key, function_rewrite
from .pass_infra import Pass

_OP = "relax.layout_transform"


def _is_transform(e: Any) -> bool:
    return isinstance(e, rx.Call) and getattr(e.op, "name", "") == _OP


_MAX_POINTS = 4096  # the maps are checked index by index; larger tensors are left alone


def _undoes(second: IndexMap, first: IndexMap, shape: Any) -> bool:
    """Whether applying `second` after `first` gives back every index of a tensor of `shape`
    (no padding). NOTE: checked point by point, since our simplifier cannot prove
    `(i * 4 + j) // 4 == i` from the ranges; so only small static shapes qualify."""
    dims = [d.value if isinstance(d, tx.IntImm) else None for d in shape or ()]
    if second.ndim != len(first.final_indices) or None in dims or not dims or \
            int(np.prod(dims)) > _MAX_POINTS:
        return False
    back = second.map_indices(first.final_indices)
    if len(back) != len(first.initial_indices):
        return False
    for point in np.ndindex(*dims):
        values = {v: tx.const(int(p), v.dtype) for v, p in zip(first.initial_indices, point)}
        for expr, want in zip(back, point):
            got = simplify(substitute(expr, values))
            if not (isinstance(got, tx.IntImm) and got.value == want):
                return False
    return True


class _Optimizer(BlockRewriter):
    def __init__(self) -> None:
        super().__init__()
        self.values: dict[rx.Var, rx.Call] = {}
        self.seen: dict[Any, rx.Var] = {}

    def rewrite(self, b: Any) -> Any:
        v = b.value
        if not (isinstance(b, rx.VarBinding) and _is_transform(v)):
            return None
        src = self.values.get(v.args[0])
        if src is not None and v.attr("pad_value") is None and src.attr("pad_value") is None \
                and _undoes(v.attr("index_map"), src.attr("index_map"),
                            getattr(src.args[0].struct_info, "shape", None)) \
                and structural_equal(src.args[0].struct_info, b.var.struct_info):
            self.mapping[b.var] = src.args[0]
            return DROP
        key = expr_key(v)
        if key in self.seen:
            self.mapping[b.var] = self.seen[key]
            return DROP
        self.seen[key] = b.var
        self.values[b.var] = v
        return None


def OptimizeLayoutTransform() -> Pass:  # noqa: N802 (TVM's name)
    return function_rewrite("OptimizeLayoutTransform", _Optimizer)
