"""Pattern helpers in the spirit of TVM's `relax.backend.patterns`."""

from __future__ import annotations

from typing import Any

from ..ir.dpl import DFPattern, is_op, wildcard


def make_fused_bias_activation_pattern(op_name: str, with_bias: bool = False,
                                       activation: str | None = None
                                       ) -> tuple[DFPattern, dict[str, DFPattern]]:
    """`activation(op(lhs, rhs) + bias)`, each part optional; returns (pattern, annotations).

    The annotations name the sub-patterns (`lhs`, `rhs`, `bias`, `root`) so a check function
    or a codegen can find what each matched.
    """
    lhs, rhs = wildcard(), wildcard()
    out = is_op(op_name)(lhs, rhs)
    return _with_bias_activation(out, {"lhs": lhs, "rhs": rhs, "root": out}, with_bias,
                                 activation)


def make_matmul_pattern(with_bias: bool = False, activation: str | None = None,
                        transposed_rhs: bool = False) -> tuple[DFPattern, dict[str, DFPattern]]:
    """`matmul(lhs, rhs)` or `matmul(lhs, permute_dims(rhs))` (a dense layer), + bias, act."""
    lhs, rhs = wildcard(), wildcard()
    right = is_op("relax.permute_dims")(rhs) if transposed_rhs else rhs
    out = is_op("relax.matmul")(lhs, right)
    return _with_bias_activation(out, {"lhs": lhs, "rhs": rhs, "root": out}, with_bias,
                                 activation)


def _with_bias_activation(out: DFPattern, annotations: dict[str, DFPattern], with_bias: bool,
                          activation: str | None) -> tuple[DFPattern, dict[str, DFPattern]]:
    if with_bias:
        bias = wildcard()
        out = is_op("relax.add")(out, bias)
        annotations["bias"] = bias
    if activation:
        out = is_op(activation)(out)
        annotations["activation"] = out
    return out, annotations


def has_leaking_intermediate_variables(context: Any) -> bool:
    """Whether a value inside a match (not its result) is also used outside it, or could be
    (a non-dataflow variable): offloading the match would then lose it (TVM's check of the
    same name, in `relax.backend.utils`)."""
    from ..ir.expr import DataflowVar

    defined = set(context.matched_bindings)
    output = context.value_to_bound_var[context.matched_expr]
    inner = [v for v in context.matched_bindings if v is not output]
    if any(not isinstance(v, DataflowVar) for v in inner):
        return True
    return any(user not in defined for v in inner for user in context.var_usages.get(v, ()))
