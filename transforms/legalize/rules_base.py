"""Legalization rules of the bitwise operators (ir/ops/bitwise.py, computes in topi/bitwise.py)
and of the `relax.op.base` / `datatype` / `qdq` / `search` operators that lower to computes."""

from __future__ import annotations

from typing import Any

from ... import te
from ...ir.ops.bitwise import BITWISE_BINARY
from ...tir import expr as tx
from ...topi.transform import cast
from ...topi import bitwise as bw
from ...topi import qdq_search as qs
from ...topi import scatter_index as sx
from .rules import register_legalize

for _n in BITWISE_BINARY:
    register_legalize(f"relax.{_n}", (lambda f: lambda c, a, b: f(a, b))(getattr(bw, _n)))
register_legalize("relax.bitwise_not", lambda c, x: bw.bitwise_not(x))


def _size(call: Any, x: Any) -> Any:
    count = tx.const(1, "int64")
    for d in x.shape:
        count = count * (d.astype("int64") if d.dtype != "int64" else d)
    return te.compute((), lambda: count, name="T_size")


register_legalize("relax.size", _size)
register_legalize("relax.wrap_param", lambda c, x: cast(x, c.attr("dtype")))

register_legalize("relax.quantize", lambda c, x, s, z: qs.quantize(
    x, s, z, c.attr("axis"), c.attr("out_dtype")))
register_legalize("relax.dequantize", lambda c, x, s, z: qs.dequantize(
    x, s, z, c.attr("axis"), c.attr("out_dtype")))
register_legalize("relax.bucketize", lambda c, x, b: qs.bucketize(
    x, b, c.attr("out_int32"), c.attr("right")))
register_legalize("relax.median", lambda c, x: qs.median(x, c.attr("axis"), c.attr("keepdims")))
register_legalize("relax.multinomial_from_uniform", lambda c, p, u, i: qs.multinomial_from_uniform(
    p, u, i, c.attr("dtype")))

register_legalize("relax.slice_scatter", lambda c, x, src, start, end, step: sx.slice_scatter(
    x, src, start, end, step, c.attr("axis")))
register_legalize("relax.index_tensor", lambda c, x, idx: sx.index_tensor(x, list(idx)))
register_legalize("relax.index_put", lambda c, x, idx, v: sx.index_put(
    x, list(idx), v, c.attr("accumulate")))
