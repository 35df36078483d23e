"""Legalization rules of the operators in ir/ops/math_ext.py, creation.py, indexing.py and
nn_ext.py (the te computes live in topi/math_ext.py, topi/indexing.py and topi/nn_ext.py)."""

from __future__ import annotations

from ...ir.ops.math_ext import ANY_UNARY, CLASSIFY, EXTRA_BINARY, FLOAT_UNARY
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
