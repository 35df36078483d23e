"""TVM's plain legalization of the `R.nn` operators (topi/nn_plain.py, conv_plain.py).

Each rule here replaces an earlier one only outside the build pipeline: under
`default_schedules()` (topi/schedule_mode.py) the earlier rule, with its scheduled compute,
still runs, so the kernels the build compiles do not change.
"""

from __future__ import annotations

from typing import Any

from ... import topi
from ...topi import conv_plain as CP
from ...topi import image_ext
from ...topi import nn_plain as P
from ...tir import expr as tx
from ...topi.schedule_mode import scheduled
from .rules import LEGALIZE, NAMED_BY_CALL, Rule, register_legalize


# The rules registered before this module's (the scheduled forms, and other pad modes).
LEGALIZE_BEFORE: dict[str, Rule] = {}


def plain_rule(name: str, rule: Rule) -> None:
    """`rule` for `name` when not scheduled, the rule registered before otherwise."""
    before = LEGALIZE.get(name)
    if before is not None:
        LEGALIZE_BEFORE[name] = before

    def either(call: Any, *args: Any) -> Any:
        if before is not None and scheduled():
            return before(call, *args)
        return rule(call, *args)
    register_legalize(name, either)


plain_rule("relax.nn.gelu", lambda c, x: P.gelu(x))
plain_rule("relax.nn.gelu_tanh", lambda c, x: P.gelu_tanh(x))
plain_rule("relax.nn.silu", lambda c, x: P.silu(x))
plain_rule("relax.nn.leakyrelu", lambda c, x: P.leaky_relu(x, c.attr("alpha")))
_prelu_per_channel = LEGALIZE["relax.nn.prelu"]


@register_legalize("relax.nn.prelu")
def _prelu(call: Any, x: Any, slope: Any) -> Any:
    """The scheduled rule reads one slope per channel: a one-element slope takes TVM's form."""
    axis = call.attr("axis") % x.ndim
    if scheduled() and str(slope.shape[0]) == str(x.shape[axis]):
        return _prelu_per_channel(call, x, slope)
    return P.prelu(x, slope, call.attr("axis"))
plain_rule("relax.nn.softmax", lambda c, x: P.softmax(x, c.attr("axis")))
plain_rule("relax.nn.log_softmax", lambda c, x: P.log_softmax(x, c.attr("axis")))
plain_rule("relax.nn.cross_entropy_with_logits",
           lambda c, x, y: P.cross_entropy_with_logits(x, y))
plain_rule("relax.nn.layer_norm", lambda c, x, g, b: P.layer_norm(
    x, g, b, c.attr("axes"), c.attr("epsilon")))
plain_rule("relax.nn.rms_norm", lambda c, x, w: P.rms_norm(x, w, c.attr("axes"),
                                                           c.attr("epsilon")))
plain_rule("relax.nn.nll_loss", lambda c, x, t, w=None: P.nll_loss(
    x, t, w, c.attr("reduction"), c.attr("ignore_index")))
plain_rule("relax.nn.batch_norm", lambda c, x, g, b, m, v: P.batch_norm(
    x, g, b, m, v, c.attr("axis"), c.attr("epsilon"), c.attr("center"), c.attr("scale"),
    bool(c.attr("training")), c.attr("momentum")))
plain_rule("relax.nn.group_norm", lambda c, x, g, b: P.group_norm(
    x, g, b, c.attr("num_groups"), c.attr("channel_axis"), c.attr("axes"), c.attr("epsilon"),
    c.attr("center"), c.attr("scale")))
for _name in ("relax.nn.attention", "relax.nn.attention_bias"):
    plain_rule(_name, lambda c, q, k, v, bias=None: P.attention(
        q, k, v, bias, c.attr("scale"), c.attr("causal_mask")))
# TVM legalizes a weightless nll_loss through a helper of that name
NAMED_BY_CALL["relax.nn.nll_loss"] = lambda c: "nll_loss" if len(c.args) > 2 or scheduled() \
    else "nll_loss_without_weight"


def _conv(call: Any, x: Any, w: Any) -> Any:
    return CP.conv(x, w, call.attr("strides"), call.attr("padding"), call.attr("dilation"),
                   call.attr("groups"), call.attr("data_layout"), call.attr("kernel_layout"),
                   call.attr("out_dtype") or None)


def _scheduled_conv(name: str, layouts: tuple[str, str] | None) -> None:
    """The scheduled rule of `name` where it applies (a static kernel, and `layouts` when
    given: the only ones it knows), TVM's plain conv elsewhere."""
    before = LEGALIZE[name]

    @register_legalize(name)
    def rule(call: Any, x: Any, w: Any) -> Any:
        given = (call.attr("data_layout"), call.attr("kernel_layout"))
        static = all(isinstance(d, tx.IntImm) for d in w.shape)
        if scheduled() and static and (layouts is None or given == layouts):
            return before(call, x, w)
        return _conv(call, x, w)


_scheduled_conv("relax.nn.conv1d", ("NCW", "OIW"))
_scheduled_conv("relax.nn.conv2d", None)  # its rule transposes other layouts
plain_rule("relax.nn.conv3d", _conv)
plain_rule("relax.nn.pad", lambda c, x: CP.pad(
    x, c.attr("pad_width")[0::2], c.attr("pad_width")[1::2], c.attr("pad_value"))
    if (c.attr("pad_mode") or "constant") == "constant" else LEGALIZE_BEFORE["relax.nn.pad"](c, x))


def _scheduled_or_plain(name: str, plain: Rule, default_layout: str) -> None:
    """The scheduled rule knows only `default_layout`: other layouts take the plain form."""
    before = LEGALIZE[name]

    @register_legalize(name)
    def rule(call: Any, *args: Any) -> Any:
        if scheduled() and (call.attr("layout") or default_layout) == default_layout:
            return before(call, *args)
        out = plain(call, *args)
        if out is None and (call.attr("layout") or default_layout) != default_layout:
            raise NotImplementedError(f"{name}: layout {call.attr('layout')!r} is legalized "
                                      f"only when every pooling window has the same size")
        return before(call, *args) if out is None else out


_scheduled_or_plain("relax.nn.max_pool2d", lambda c, x: CP.max_pool(
    x, c.attr("pool_size"), c.attr("strides"), c.attr("dilation"), c.attr("padding"),
    c.attr("ceil_mode"), c.attr("layout") or "NCHW"), "NCHW")
def _adaptive(call: Any, x: Any) -> Any:
    layout = call.attr("layout") or "NCHW"
    size = call.attr("output_size")
    if size is None:
        size = [x.shape[layout.index(ch)] for ch in "HW"]
    return CP.adaptive_avg_pool(x, size, layout)


_scheduled_or_plain("relax.nn.adaptive_avg_pool2d", _adaptive, "NCHW")
_avg_pool2d_nchw = LEGALIZE["relax.nn.avg_pool2d"]


@register_legalize("relax.nn.avg_pool2d")
def _avg_pool2d(call: Any, x: Any) -> Any:
    """TVM's plain form where tvmlite writes its window count as TVM's simplifier does; else
    the NCHW rule (between transposes for other orders of N, C, H, W)."""
    layout = call.attr("layout") or "NCHW"
    plain = not (scheduled() and layout == "NCHW") and not call.attr("count_include_pad") \
        and all(d == 1 for d in call.attr("dilation"))
    out = CP.avg_pool(x, call.attr("pool_size"), call.attr("strides"), call.attr("padding"),
                      call.attr("ceil_mode"), layout) if plain else None
    if out is not None:
        return out
    if layout == "NCHW":
        return _avg_pool2d_nchw(call, x)
    if sorted(layout) != sorted("NCHW"):
        raise NotImplementedError(f"relax.nn.avg_pool2d: layout {layout!r} cannot be legalized "
                                  f"by tvmlite (use an order of N, C, H and W)")
    out = _avg_pool2d_nchw(call, topi.transpose(x, [layout.index(ch) for ch in "NCHW"]))
    return topi.transpose(out, ["NCHW".index(ch) for ch in layout])


def _conv_transpose(call: Any, x: Any, w: Any) -> Any:
    return CP.conv_transpose(x, w, call.attr("strides"), call.attr("padding"),
                             call.attr("output_padding"), call.attr("dilation"),
                             call.attr("groups"), call.struct_info.dtype)


for _rank in (1, 2, 3):
    plain_rule(f"relax.nn.conv{_rank}d_transpose", _conv_transpose)
_resize2d_nchw = LEGALIZE["relax.image.resize2d"]


@register_legalize("relax.image.resize2d")
def _resize2d(call: Any, x: Any, size: Any) -> Any:
    """TVM's nearest-neighbour asymmetric resize in any layout; the other methods run the NCHW
    rule (between transposes for other orders of N, C, H, W)."""
    layout = call.attr("layout") or "NCHW"
    method, coords = call.attr("method"), call.attr("coordinate_transformation_mode")
    if method == "nearest_neighbor" and coords == "asymmetric" and not (
            scheduled() and layout == "NCHW"):
        return image_ext.resize2d_nearest_asymmetric(
            x, size, layout, call.attr("rounding_method") or "floor", call.struct_info.dtype)
    if layout == "NCHW":
        return _resize2d_nchw(call, x, size)
    if sorted(layout) != sorted("NCHW"):
        raise NotImplementedError(f"relax.image.resize2d: {method} in layout {layout!r} cannot "
                                  f"be legalized by tvmlite (use an order of N, C, H and W)")
    out = _resize2d_nchw(call, topi.transpose(x, [layout.index(ch) for ch in "NCHW"]), size)
    return topi.transpose(out, ["NCHW".index(ch) for ch in layout])
