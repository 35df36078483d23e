"""Legalization rules of the operators in ir/ops/math_ext.py, creation.py, indexing.py and
nn_ext.py (the te computes live in topi/math_ext.py, topi/indexing.py and topi/nn_ext.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...ir.ops.math_ext import ANY_UNARY, CLASSIFY, EXTRA_BINARY, FLOAT_UNARY
from ...ir.op import get_op
from ...ir.ops.linalg_stats import parse_subscripts
from ...topi import creation as cr
from ...topi import linalg_stats as ls
from ...topi import grad as tgrad
from ...topi import grad_take, scatter_flat
from ...topi import losses as lo
from ...topi import indexing as ix
from ...topi import math_ext as m
from ...topi import nn_ext as nx
from ...topi.schedule_mode import scheduled
from ...topi.transform import reshape
from ... import topi
from .bb_rules import register_legalize as register_bb_legalize
from .rules import NAMED_BY_CALL, fill_value, register_legalize

for _n in FLOAT_UNARY + ANY_UNARY + CLASSIFY + EXTRA_BINARY + ("logical_xor",):
    register_legalize(f"relax.{_n}", (lambda f: lambda c, *a: f(*a))(getattr(m, _n)))
register_legalize("relax.clip", lambda c, x, lo, hi: m.clip(x, lo, hi))
register_legalize("relax.nn.relu6", lambda c, x: m.relu6(x))
register_legalize("relax.nn.selu", lambda c, x: m.selu(x))
register_legalize("relax.nn.leakyrelu", lambda c, x: m.leaky_relu(x, c.attr("alpha")))
register_legalize("relax.nn.softplus",
                  lambda c, x: m.softplus(x, c.attr("beta"), c.attr("threshold")))
register_legalize("relax.nn.prelu", lambda c, x, a: m.prelu(x, a, c.attr("axis")))

register_legalize("relax.shape_to_tensor", lambda c, values: cr.shape_to_tensor(values))
register_legalize("relax.arange", lambda c, start, end, step: cr.arange(
    start, step, c.struct_info.shape[0], c.attr("dtype")))
# x arrives as its shape (LegalizeOps' SHAPE_ONLY); the dtype is the call's
register_legalize("relax.full_like", lambda c, shape, v: topi.full(
    shape, c.struct_info.dtype, fill_value(v, c.struct_info.dtype)))
register_legalize("relax.zeros_like", lambda c, shape: topi.full(shape, c.struct_info.dtype, 0))
register_legalize("relax.ones_like", lambda c, shape: topi.full(shape, c.struct_info.dtype, 1))
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
register_legalize("relax.scatter_elements", lambda c, x, i, u: (
    scatter_flat if scatter_flat.flat_kernel_fits(x, i, c.attr("axis")) else ix
).scatter_elements(x, i, u, c.attr("axis"), c.attr("reduction")))
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

register_legalize("relax.nn.pad", lambda c, x: nx.pad(
    x, c.attr("pad_width"), c.attr("pad_mode"), c.attr("pad_value")))
register_legalize("relax.nn.conv1d", lambda c, x, w: nx.conv1d(
    x, w, c.attr("strides"), c.attr("padding"), c.attr("dilation"), c.attr("groups"),
    c.attr("out_dtype")))
register_legalize("relax.nn.conv2d_transpose", lambda c, x, w: nx.conv2d_transpose(
    x, w, c.struct_info.shape, c.attr("strides"), c.attr("padding"), c.attr("dilation"),
    c.attr("groups"), c.struct_info.dtype))


def _group_norm(call: Any, x: Any, gamma: Any, beta: Any) -> Any:
    groups = call.attr("num_groups") or x.shape[call.attr("channel_axis") % x.ndim].value
    return nx.group_norm(x, gamma, beta, groups, call.attr("channel_axis"), call.attr("axes"),
                         call.attr("epsilon"), call.attr("center"), call.attr("scale"))


register_legalize("relax.nn.group_norm", _group_norm)
register_legalize("relax.nn.instance_norm", _group_norm)
for _name in ("relax.nn.attention", "relax.nn.attention_bias"):
    register_legalize(_name, lambda c, q, k, v, bias=None: nx.attention(
        q, k, v, bias, c.attr("scale"), c.attr("causal_mask")))
for _kind in ("max", "avg"):
    register_legalize(f"relax.nn.{_kind}_pool1d", (lambda kind: lambda c, x: nx.pool1d(
        x, kind, c.attr("pool_size"), c.attr("strides"), c.attr("padding"),
        c.attr("dilation"), c.attr("ceil_mode"), c.attr("count_include_pad")))(_kind))
register_legalize("relax.nn.adaptive_avg_pool1d", lambda c, x: nx.adaptive_avg_pool1d(
    x, c.struct_info.shape[2]))
register_legalize("relax.nn.pixel_shuffle",
                  lambda c, x: nx.pixel_shuffle(x, c.attr("upscale_factor")))
register_legalize("relax.nn.batch_flatten", lambda c, x: reshape(x, c.struct_info.shape))
register_legalize("relax.image.resize2d", lambda c, x, size: nx.resize2d(
    x, size, c.attr("method"), c.attr("coordinate_transformation_mode"),
    c.attr("rounding_method"), c.struct_info.dtype))

register_legalize("relax.einsum", lambda c, xs: ls.einsum(
    *parse_subscripts("relax.einsum", c.attr("subscripts"), len(xs)), xs))
register_legalize("relax.outer", lambda c, a, b: ls.outer(a, b))
register_legalize("relax.variance",
                  lambda c, x: ls.variance(x, c.attr("axis"), c.attr("keepdims")))
register_legalize("relax.std", lambda c, x: ls.std(x, c.attr("axis"), c.attr("keepdims")))
register_legalize("relax.meshgrid", lambda c, xs: ls.meshgrid(xs, c.attr("indexing")))
register_legalize("relax.collapse_sum_like",
                  lambda c, x, t: ls.collapse_sum(x, c.struct_info.shape))
register_legalize("relax.collapse_sum_to",
                  lambda c, x, shape: ls.collapse_sum(x, c.struct_info.shape))


def _rounding(name: str) -> Any:
    """floor / ceil / round of integers is the identity (TVM legalizes them so)."""
    from ... import topi

    def rule(call: Any, x: Any) -> Any:
        f = topi.identity if not x.dtype.startswith(("float", "bfloat")) else getattr(topi, name)
        return f(x)
    return rule


for _n in ("floor", "ceil", "round"):
    register_legalize(f"relax.{_n}", _rounding(_n))

register_legalize("relax.nn.cross_entropy_with_logits",
                  lambda c, x, y: lo.cross_entropy_with_logits(x, y))
register_legalize("relax.nn.nll_loss", lambda c, x, t, w=None: lo.nll_loss(
    x, t, w, c.attr("reduction"), c.attr("ignore_index")))
register_legalize("relax.nn.conv1d_transpose", lambda c, x, w: lo.conv1d_transpose(
    x, w, c.struct_info.shape, c.attr("strides"), c.attr("padding"), c.attr("dilation"),
    c.attr("groups"), c.struct_info.dtype))
register_legalize("relax.reverse_sequence", lambda c, x, n: (
    lo.reverse_sequence if scheduled() else ix.reverse_sequence_plain)(
    x, n, c.attr("seq_axis"), c.attr("batch_axis")))
# relax's index tuple is on the last axis of `indices`, topi's on the first (TVM transposes)
register_legalize("relax.scatter_nd", lambda c, x, i, u: scatter_flat.scatter_nd(
    x, topi.transpose(i, (i.ndim - 1, *range(i.ndim - 1))), u, c.attr("reduction")))
register_legalize("relax.hamming_window", lambda c, n, p, a, b: lo.hamming_window(
    n, p, a, b, c.attr("dtype")))

register_legalize("relax.grad.nll_loss_backward", lambda c, g, x, t, w=None:
                  tgrad.nll_loss_backward(g, x, t, w, c.attr("reduction"),
                                          c.attr("ignore_index")))
# TVM names the weightless form after the te function it calls
NAMED_BY_CALL["relax.grad.nll_loss_backward"] = lambda c: "nll_loss_backward" \
    if len(c.args) > 3 else "te_nll_loss_backward_no_weight"
# TVM's flat-index kernel takes 1-d indices; the gather covers the other ranks
register_legalize("relax.grad.take_backward", lambda c, g, x, i: (
    grad_take if i.ndim == 1 else tgrad).take_backward(g, x, i, c.attr("axis")))
for _kind in ("max", "avg"):
    register_legalize(f"relax.grad.{_kind}_pool2d_backward", (lambda kind: lambda c, g, x:
                      tgrad.pool2d_backward(kind, g, x, *(c.attr(a) for a in (
                          "pool_size", "strides", "padding", "dilation", "ceil_mode",
                          "count_include_pad"))))(_kind))
# the markers of the Gradient pass are their input once differentiation is done
for _marker in ("no_grad", "start_checkpoint", "end_checkpoint"):
    register_bb_legalize(f"relax.grad.{_marker}", lambda bb, call: call.args[0])
# call_tir_with_grad outside the Gradient pass is the call_tir it carries
register_bb_legalize("relax.call_tir_with_grad", lambda bb, call: replace(
    call, op=get_op("relax.call_tir"), attrs=()))
