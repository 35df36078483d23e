"""Legalization rules of the bitwise operators (ir/ops/bitwise.py, computes in topi/bitwise.py)
and of the `relax.op.base` / `datatype` operators that lower to plain computes."""

from __future__ import annotations

from ...ir.ops.bitwise import BITWISE_BINARY
from ...topi import bitwise as bw
from .rules import register_legalize

for _n in BITWISE_BINARY:
    register_legalize(f"relax.{_n}", (lambda f: lambda c, a, b: f(a, b))(getattr(bw, _n)))
register_legalize("relax.bitwise_not", lambda c, x: bw.bitwise_not(x))
