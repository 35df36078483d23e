"""Gradient rules of the `R.nn` operators (see gradient_rules.py for the rule signature)."""

from __future__ import annotations

from typing import Any

from ..ir import expr as rx
from ..ir.ops.base import scalar_const
from .gradient_rules import _const, _op, _shape, no_grad, register_gradient


@register_gradient("relax.nn.relu")
def _relu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    zero = _const(0, x)
    return [_op("where")(_op("less")(x, zero), zero, g)]


@register_gradient("relax.nn.silu")
def _silu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    sig = _op("sigmoid")(x)
    return [g * (sig + v * (_const(1, x) - sig))]


@register_gradient("relax.nn.softmax")
def _softmax(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [(g - _op("sum")(g * v, [c.attr("axis")], True)) * v]


@register_gradient("relax.nn.log_softmax")
def _log_softmax(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g - _op("sum")(g, [c.attr("axis")], True) * _op("exp")(v)]


@register_gradient("relax.nn.cross_entropy_with_logits")
def _cross_entropy(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, y = c.args
    shape = _shape(x)
    if len(shape) > 1:  # the loss is averaged over the batch
        g = g / scalar_const(int(shape[0]), g.struct_info.dtype)  # type: ignore[union-attr]
    return [-g * y, -g * x]


@register_gradient("relax.nn.nll_loss")
def _nll_loss(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    weights = c.args[2] if len(c.args) == 3 else None
    grad = _op("grad.nll_loss_backward")(g, c.args[0], c.args[1], weights,
                                         c.attr("reduction"), c.attr("ignore_index"))
    return [grad, *(no_grad(a) for a in c.args[1:])]


def _pool_rule(backward: str) -> Any:
    def rule(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
        return [_op(backward)(g, c.args[0], *(c.attr(a) for a in (
            "pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad",
            "layout")))]
    return rule


register_gradient("relax.nn.max_pool2d", _pool_rule("grad.max_pool2d_backward"))
register_gradient("relax.nn.avg_pool2d", _pool_rule("grad.avg_pool2d_backward"))
