"""`tvm.relax.dpl.pattern`: the pattern constructors (ir/dpl.py), and TVM's helper for an
operator followed by an optional bias add and activation."""

from __future__ import annotations

from ...backend.patterns import make_fused_bias_activation_pattern as _with_annotations
from ...ir.dpl import *  # noqa: F401,F403 (the pattern language, whole)
from ...ir.dpl import DFPattern, is_op, wildcard


def make_fused_bias_activation_pattern(op_name: str, with_bias: bool = False,
                                       activation: str | None = None,
                                       allow_reshape: bool = False) -> DFPattern:
    """`activation(op(lhs, rhs) + bias)`, as TVM's helper of that name returns it: the pattern
    alone (`allow_reshape` also admits a reshape of the op's result before the bias add)."""
    if not allow_reshape or not with_bias:
        return _with_annotations(op_name, with_bias, activation)[0]
    out = is_op(op_name)(wildcard(), wildcard())
    out = is_op("relax.add")(out | is_op("relax.reshape")(out, wildcard()), wildcard())
    return is_op(activation)(out) if activation else out
