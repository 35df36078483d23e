"""Legalization rules of the operators in ir/ops/math_ext.py, creation.py, indexing.py and
nn_ext.py (the te computes live in topi/math_ext.py, topi/indexing.py and topi/nn_ext.py)."""

from __future__ import annotations

from typing import Any

from ...ir.ops.math_ext import ANY_UNARY, CLASSIFY, EXTRA_BINARY, FLOAT_UNARY
from ...topi import creation as cr
from ...topi import indexing as ix
from ...topi import math_ext as m
from .rules import register_legalize

for _n in FLOAT_UNARY + ANY_UNARY + CLASSIFY + EXTRA_BINARY + ("logical_xor",):
    register_legalize(f"relax.{_n}", (lambda f: lambda c, *a: f(*a))(getattr(m, _n)))
register_legalize("relax.clip", lambda c, x, lo, hi: m.clip(x, lo, hi))
register_legalize("relax.nn.relu6", lambda c, x: m.relu6(x))
register_legalize("relax.nn.selu", lambda c, x: m.selu(x))
register_legalize("relax.nn.leakyrelu", lambda c, x: m.leaky_relu(x, c.attr("alpha")))
register_legalize("relax.nn.softplus",
                  lambda c, x: m.softplus(x, c.attr("beta"), c.attr("threshold")))
register_legalize("relax.nn.prelu", lambda c, x, a: m.prelu(x, a, c.attr("axis")))

register_legalize("relax.arange", lambda c, start, end, step: cr.arange(
    start, step, c.struct_info.shape[0], c.attr("dtype")))
register_legalize("relax.full_like",
                  lambda c, x, v: cr.full_like(x, v, c.attr("dtype") or x.dtype))
register_legalize("relax.zeros_like", lambda c, x: cr.full_like(x, 0, c.attr("dtype") or x.dtype))
register_legalize("relax.ones_like", lambda c, x: cr.full_like(x, 1, c.attr("dtype") or x.dtype))
register_legalize("relax.eye", lambda c, n, m, k: cr.eye(n, m, k, c.attr("dtype")))
register_legalize("relax.eye_like", lambda c, x, k: cr.eye(
    x.shape[0], x.shape[1], k, c.attr("dtype") or x.dtype))
register_legalize("relax.tril", lambda c, x, k: cr.trilu(x, k, upper=False))
register_legalize("relax.triu", lambda c, x, k: cr.trilu(x, k, upper=True))

register_legalize("relax.flip", lambda c, x: ix.flip(x, c.attr("axis")))
register_legalize("relax.tile", lambda c, x: ix.tile(x, c.attr("repeats")))
register_legalize("relax.repeat", lambda c, x: ix.repeat(x, c.attr("repeats"), c.attr("axis")))
register_legalize("relax.stack", lambda c, xs: ix.stack(xs, c.attr("axis")))
register_legalize("relax.one_hot", lambda c, i, on, off: ix.one_hot(
    i, on, off, c.attr("depth"), c.attr("axis")))
for _kind in ("sum", "prod"):
    register_legalize(f"relax.cum{_kind}", (lambda kind: lambda c, x: ix.cumulative(
        x, c.attr("axis"), c.attr("dtype") or x.dtype, c.attr("exclusive"), kind))(_kind))
register_legalize("relax.gather_elements",
                  lambda c, x, i: ix.gather_elements(x, i, c.attr("axis")))
register_legalize("relax.gather_nd", lambda c, x, i: ix.gather_nd(x, i, c.attr("batch_dims")))
register_legalize("relax.scatter_elements", lambda c, x, i, u: ix.scatter_elements(
    x, i, u, c.attr("axis"), c.attr("reduction")))
register_legalize("relax.sort",
                  lambda c, x: ix.sort_by_rank(x, c.attr("axis"), c.attr("descending")))
register_legalize("relax.argsort", lambda c, x: ix.sort_by_rank(
    x, c.attr("axis"), c.attr("descending"), want="indices", dtype=c.attr("dtype")))


@register_legalize("relax.topk")
def _topk(call: Any, x: Any) -> Any:
    axis, k, largest = call.attr("axis"), call.attr("k"), call.attr("largest")
    vals = ix.sort_by_rank(x, axis, largest, k)
    idx = ix.sort_by_rank(x, axis, largest, k, want="indices", dtype=call.attr("dtype"))
    return {"both": [vals, idx], "values": vals, "indices": idx}[call.attr("ret_type")]
