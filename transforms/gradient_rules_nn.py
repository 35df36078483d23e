"""Gradient rules of the `R.nn` operators (see gradient_rules.py for the rule signature)."""

from __future__ import annotations

import math
from typing import Any

from ..ir import expr as rx
from ..ir.ops.base import scalar_const
from .gradient_rules import const_like, no_grad, op_maker, register_gradient, static_shape


@register_gradient("relax.nn.relu")
def _relu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    zero = const_like(0, x)
    return [op_maker("where")(op_maker("less")(x, zero), zero, g)]


@register_gradient("relax.nn.silu")
def _silu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    sig = op_maker("sigmoid")(x)
    return [g * (sig + v * (const_like(1, x) - sig))]


@register_gradient("relax.nn.softmax")
def _softmax(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [(g - op_maker("sum")(g * v, [c.attr("axis")], True)) * v]


@register_gradient("relax.nn.log_softmax")
def _log_softmax(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g - op_maker("sum")(g, [c.attr("axis")], True) * op_maker("exp")(v)]


@register_gradient("relax.nn.cross_entropy_with_logits")
def _cross_entropy(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, y = c.args
    shape = static_shape(x)
    if len(shape) > 1:  # the loss is averaged over the batch
        g = g / scalar_const(int(shape[0]), g.struct_info.dtype)  # type: ignore[union-attr]
    return [-g * y, -g * x]


@register_gradient("relax.nn.nll_loss")
def _nll_loss(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    weights = c.args[2] if len(c.args) == 3 else None
    grad = op_maker("grad.nll_loss_backward")(g, c.args[0], c.args[1], weights,
                                         c.attr("reduction"), c.attr("ignore_index"))
    return [grad, *(no_grad(a) for a in c.args[1:])]


def _pool_rule(backward: str) -> Any:
    def rule(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
        return [op_maker(backward)(g, c.args[0], *(c.attr(a) for a in (
            "pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad",
            "layout")))]
    return rule


register_gradient("relax.nn.max_pool2d", _pool_rule("grad.max_pool2d_backward"))
register_gradient("relax.nn.avg_pool2d", _pool_rule("grad.avg_pool2d_backward"))


@register_gradient("relax.nn.conv2d")
def _conv2d(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    """data: a transposed convolution of g; weight: the data convolved with g, strides and
    dilation swapped, batch and channels exchanged (TVM convolves CNHW data with an IOHW
    kernel; here the same as NCHW / OIHW around transposes), cut to the kernel."""
    if (c.attr("data_layout"), c.attr("kernel_layout")) != ("NCHW", "OIHW"):
        raise RuntimeError("the gradient of conv2d supports NCHW data and OIHW kernels only")
    data, weight = c.args
    strides, padding, dilation = c.attr("strides"), c.attr("padding"), c.attr("dilation")
    groups, out_dtype = c.attr("groups"), c.attr("out_dtype")
    batch, out_ch, gh, gw = (int(d) for d in static_shape(v))
    _, in_ch, ih, iw = (int(d) for d in static_shape(data))
    _, _, fh, fw = (int(d) for d in static_shape(weight))
    pt, pl, pb, pr = padding
    # NOTE: the rows / columns the forward's strides dropped come back as output padding;
    # TVM leaves the dilation out of this extent, which only differs when dilated
    out_h = (gh - 1) * strides[0] - pt - pb + dilation[0] * (fh - 1) + 1
    out_w = (gw - 1) * strides[1] - pl - pr + dilation[1] * (fw - 1) + 1
    data_grad = op_maker("nn.conv2d_transpose")(g, weight, strides, padding,
                                          (ih - out_h, iw - out_w), dilation, groups,
                                          "NCHW", "IOHW", "NCHW", out_dtype)
    swap = [1, 0, 2, 3]
    if groups != 1:
        data = op_maker("reshape")(data, (batch, groups, in_ch // groups, ih, iw))
        data = op_maker("permute_dims")(data, [1, 0, 2, 3, 4])
        data = op_maker("reshape")(data, (batch * groups, in_ch // groups, ih, iw))
    weight_grad = op_maker("permute_dims")(op_maker("nn.conv2d")(
        op_maker("permute_dims")(data, swap), op_maker("permute_dims")(g, swap), dilation, padding,
        strides, groups, "NCHW", "OIHW", "NCHW", out_dtype), swap)
    wh = (ih - (gh - 1) * strides[0] - 1 + pt + pb) // dilation[0] + 1
    ww = (iw - (gw - 1) * strides[1] - 1 + pl + pr) // dilation[1] + 1
    if wh > fh or ww > fw:
        weight_grad = op_maker("strided_slice")(weight_grad, [0, 1, 2, 3], [0, 0, 0, 0],
                                           [out_ch, in_ch // groups, fh, fw])
    return [data_grad, weight_grad]


# -- beyond TVM's rules -------------------------------------------------------------------------

@register_gradient("relax.nn.leakyrelu")
def _leakyrelu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    negative = op_maker("less")(x, const_like(0, x))
    return [op_maker("where")(negative, g * const_like(c.attr("alpha"), x), g)]


@register_gradient("relax.nn.gelu")
def _gelu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    # gelu(x) = x * cdf(x): the derivative is cdf(x) + x * pdf(x)
    x = c.args[0]
    half, one = const_like(0.5, x), const_like(1, x)
    cdf = half * (one + op_maker("erf")(x * const_like(2 ** -0.5, x)))
    pdf = op_maker("exp")(const_like(-0.5, x) * x * x) * const_like((2 * math.pi) ** -0.5, x)
    return [g * (cdf + x * pdf)]
