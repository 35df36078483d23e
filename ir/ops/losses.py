"""Losses and the remaining indexing operators: nn.nll_loss, nn.cross_entropy_with_logits,
nn.conv1d_transpose, nn.attention_bias, reverse_sequence, scatter_nd, hamming_window."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OUT_EWISE_FUSABLE, REDUCE, as_int, call, fmt, norm_axis, op_error, out_tensor,
    register, same_dim, tensor_arg,
)
from .nn_ext import _conv_operands, _infer_attention, _ints, attention


def _infer_cross_entropy(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.cross_entropy_with_logits"
    x, y = tensor_arg(name, c, 0, "predictions"), tensor_arg(name, c, 1, "labels")
    if x.shape is not None and y.shape is not None and (
            len(x.shape) != len(y.shape) or
            any(same_dim(a, b) is False for a, b in zip(x.shape, y.shape))):
        raise op_error(name, f"predictions {fmt(x.shape)} and labels {fmt(y.shape)} must have "
                             f"one shape")
    return si.TensorStructInfo((), x.dtype)


def cross_entropy_with_logits(predictions: Any, labels: Any) -> rx.Call:
    """`-sum(predictions * labels) / N` (N: the batch, the first dim when rank >= 2)."""
    return call("relax.nn.cross_entropy_with_logits", (predictions, labels))


def _infer_nll_loss(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.nll_loss"
    x, t = tensor_arg(name, c, 0, "predictions"), tensor_arg(name, c, 1, "targets")
    if t.dtype and not t.dtype.startswith(("int", "uint")):
        raise op_error(name, f"targets must be integers, got {t.dtype}")
    if c.attr("reduction") not in ("mean", "sum", "none"):
        raise op_error(name, f"reduction must be mean, sum or none, got "
                             f"{c.attr('reduction')!r}")
    if x.shape is not None and t.shape is not None:
        want = x.shape[:1] + x.shape[2:] if len(x.shape) >= 2 else ()
        if len(t.shape) != len(want) or any(same_dim(a, b) is False
                                            for a, b in zip(t.shape, want)):
            raise op_error(name, f"targets {fmt(t.shape)} do not fit predictions "
                                 f"{fmt(x.shape)} (expected {fmt(want)})")
        if len(c.args) > 2:
            ch = x.shape[1] if len(x.shape) >= 2 else x.shape[0]
            w = tensor_arg(name, c, 2, "weights")
            if w.shape is not None and (len(w.shape) != 1 or same_dim(w.shape[0], ch) is False):
                raise op_error(name, f"weights {fmt(w.shape)} must be ({fmt((ch,))[1:-2]},)")
    if c.attr("reduction") != "none":
        return si.TensorStructInfo((), x.dtype)
    return si.TensorStructInfo(t.shape, x.dtype, t.ndim)


def nll_loss(predictions: Any, targets: Any, weights: Any = None, reduction: str = "mean",
             ignore_index: int = -100) -> rx.Call:
    args = (predictions, targets) if weights is None else (predictions, targets, weights)
    return call("relax.nn.nll_loss", args, reduction=str(reduction),
                ignore_index=int(ignore_index))


def _infer_conv1d_transpose(c: rx.Call) -> si.StructInfo:
    name = "relax.nn.conv1d_transpose"
    x, w, dtype = _conv_operands(name, c, "NCW", "IOW")
    if x.shape is None or w.shape is None:
        return si.TensorStructInfo(None, dtype, 3)
    if same_dim(x.shape[1], w.shape[0]) is False:
        raise op_error(name, f"data has {fmt(x.shape[1:2])} channels but weight {fmt(w.shape)} "
                             f"takes {fmt(w.shape[:1])} (IOW)")
    k = as_int(w.shape[2])
    if k is None:
        raise op_error(name, "the kernel size must be static")
    (st,), pd, (op_,), (dl,) = (c.attr(a) for a in ("strides", "padding", "output_padding",
                                                     "dilation"))
    size = (x.shape[2] - 1) * st - pd[0] - pd[1] + dl * (k - 1) + op_ + 1
    return out_tensor((x.shape[0], w.shape[1] * c.attr("groups"), size), dtype)


def conv1d_transpose(data: Any, weight: Any, strides: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, dilation: Any = 1, groups: int = 1,
                     data_layout: str = "NCW", kernel_layout: str = "IOW",
                     out_layout: Any = None, out_dtype: Any = None) -> rx.Call:
    return call("relax.nn.conv1d_transpose", (data, weight), strides=_ints(strides, 1),
                padding=_ints(padding, 2), output_padding=_ints(output_padding, 1),
                dilation=_ints(dilation, 1), groups=int(groups), data_layout=data_layout,
                kernel_layout=kernel_layout,
                out_dtype=None if str(out_dtype) in ("void", "None", "") else str(out_dtype))


def attention_bias(query: Any, key: Any, value: Any, bias: Any = None, scale: Any = None,
                   causal_mask: str | None = None, window_size: int | None = None) -> rx.Call:
    """TVM's separate operator for attention with a bias term (the same computation)."""
    return attention(query, key, value, bias, scale, causal_mask, window_size)


def _infer_reverse_sequence(c: rx.Call) -> si.StructInfo:
    name = "relax.reverse_sequence"
    x, lens = tensor_arg(name, c, 0, "data"), tensor_arg(name, c, 1, "seq_lengths")
    if lens.ndim not in (-1, 1):
        raise op_error(name, f"seq_lengths must be 1-d, got rank {lens.ndim}")
    if x.shape is not None:
        seq = norm_axis(name, c.attr("seq_axis"), len(x.shape))
        batch = norm_axis(name, c.attr("batch_axis"), len(x.shape))
        if seq == batch:
            raise op_error(name, "seq_axis and batch_axis must differ")
        if lens.shape is not None and same_dim(lens.shape[0], x.shape[batch]) is False:
            raise op_error(name, f"seq_lengths has {fmt(lens.shape)} entries for a batch of "
                                 f"{fmt(x.shape[batch:batch + 1])}")
    return x


def reverse_sequence(data: Any, seq_lengths: Any, seq_axis: int = 1, batch_axis: int = 0
                     ) -> rx.Call:
    """Reverse the first seq_lengths[b] items along seq_axis of every batch entry b."""
    return call("relax.reverse_sequence", (data, seq_lengths), seq_axis=int(seq_axis),
                batch_axis=int(batch_axis))


register("relax.nn.cross_entropy_with_logits", _infer_cross_entropy,
         cross_entropy_with_logits, REDUCE)
register("relax.nn.nll_loss", _infer_nll_loss, nll_loss, REDUCE)
register("relax.nn.conv1d_transpose", _infer_conv1d_transpose, conv1d_transpose,
         OUT_EWISE_FUSABLE)
register("relax.nn.attention_bias", _infer_attention, attention_bias,
         OUT_EWISE_FUSABLE)
register("relax.reverse_sequence", _infer_reverse_sequence, reverse_sequence, INJECTIVE)


def _infer_scatter_nd(c: rx.Call) -> si.StructInfo:
    name = "relax.scatter_nd"
    x = tensor_arg(name, c, 0, "data")
    ind, upd = tensor_arg(name, c, 1, "indices"), tensor_arg(name, c, 2, "updates")
    if ind.dtype and not ind.dtype.startswith(("int", "uint")):
        raise op_error(name, f"indices must be integers, got {ind.dtype}")
    if c.attr("reduction") not in ("update", "add", "mul", "min", "max"):
        raise op_error(name, f"reduction must be update, add, mul, min or max, got "
                             f"{c.attr('reduction')!r}")
    if x.shape is not None and ind.shape is not None and upd.shape is not None:
        m = as_int(ind.shape[-1])
        if m is None or m > len(x.shape):
            raise op_error(name, f"the last dim of indices {fmt(ind.shape)} must be static and "
                                 f"at most the rank of data {fmt(x.shape)}")
        want = tuple(ind.shape[:-1]) + tuple(x.shape[m:])
        if len(upd.shape) != len(want) or any(same_dim(a, b) is False
                                              for a, b in zip(upd.shape, want)):
            raise op_error(name, f"updates {fmt(upd.shape)} must have shape {fmt(want)}")
    return x


def scatter_nd(data: Any, indices: Any, updates: Any, reduction: str = "update") -> rx.Call:
    """`data` with `updates` written (or reduced) at the index tuples in `indices`' last dim."""
    return call("relax.scatter_nd", (data, indices, updates), reduction=str(reduction))


def _infer_hamming(c: rx.Call) -> si.StructInfo:
    from .creation import prim_of

    n = prim_of("relax.hamming_window", c, 0, "window_size")
    for i, what in ((1, "periodic"), (2, "alpha"), (3, "beta")):
        prim_of("relax.hamming_window", c, i, what)
    return out_tensor((n,), c.attr("dtype"))


def hamming_window(window_size: Any, periodic: Any, alpha: Any, beta: Any, dtype: Any
                   ) -> rx.Call:
    """`alpha - beta * cos(2 pi i / (N or N - 1))` for i < N (periodic / symmetric)."""
    from .creation import prim_arg

    def number(v: Any, to: Any, dtype: str) -> rx.Expr:  # PrimValues pass through (TVM's)
        if isinstance(v, (rx.Expr, tx.PrimExpr)):  # R.prim_value(0.54) is a FloatImm
            return prim_arg(v)
        return prim_arg(to(v), dtype)

    return call("relax.hamming_window", (prim_arg(window_size), number(periodic, bool, "bool"),
                                         number(alpha, float, "float64"),
                                         number(beta, float, "float64")), dtype=str(dtype))


register("relax.scatter_nd", _infer_scatter_nd, scatter_nd, INJECTIVE)
register("relax.hamming_window", _infer_hamming, hamming_window, INJECTIVE)
