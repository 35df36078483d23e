"""Converters of neural-network ATen ops: convolution, normalization, embedding (pooling:
ops_pool.py).

Layouts are torch's: NCHW data, OIHW weights. Ops that also return statistics for training
(max_pool2d's indices, native_layer_norm's mean and rstd) give a Python tuple whose extra
results are None: `getitem` picks result 0, and asking for another is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import expr as rx
from ...ir.ops.base import as_expr, const
from .ops_tensor import make, ndim, out_dtype
from .registry import converts


def _vector(x: Any, n: int, fill: float, dtype: str) -> Any:
    """An optional per-channel tensor (affine=False leaves weight/bias None)."""
    return const(np.full((n,), fill, dtype)) if x is None else x


_CONV_LAYOUTS = {3: ("NCW", "OIW"), 4: ("NCHW", "OIHW"), 5: ("NCDHW", "OIDHW")}


@converts("convolution.default", "conv2d.default", "conv1d.default")
def _conv(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    x, w, bias = a["input"], a["weight"], a["bias"]
    rank = ndim(x)
    if rank not in _CONV_LAYOUTS:
        raise NotImplementedError(f"from_exported_program: {node.target.__name__} is only "
                                  "supported in 1-d, 2-d and 3-d (NCW/NCHW/NCDHW input)")
    n = rank - 2
    data_layout, kernel_layout = _CONV_LAYOUTS[rank]
    pad = _ntuple(a["padding"], n)
    attrs = {"strides": _ntuple(a["stride"], n), "padding": pad + pad,
             "dilation": _ntuple(a["dilation"], n), "data_layout": data_layout,
             "out_layout": data_layout, "out_dtype": out_dtype(node)}
    kind = f"conv{n}d"
    if a.get("transposed"):  # torch's transposed weights are (in, out/groups, k...)
        attrs.update(output_padding=_ntuple(a["output_padding"], n),
                     kernel_layout="I" + kernel_layout[0] + kernel_layout[2:])
        kind += "_transpose"
    else:
        attrs["kernel_layout"] = kernel_layout
    if a["groups"] != 1:
        attrs["groups"] = a["groups"]
    y = make(f"nn.{kind}", x, w, **attrs)
    if bias is None:
        return y
    channels = bias.struct_info.shape[0]
    shape = [1, channels] + [1] * n
    return make("add", imp.emit(y), imp.emit(make("reshape", bias, shape)))


def _ntuple(v: Any, n: int) -> list[int]:
    return [v] * n if isinstance(v, int) else list(v) * (n if len(v) == 1 else 1)


@converts("_native_batch_norm_legit_no_training.default", "batch_norm.default")
def _batch_norm(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    if a.get("training"):
        raise NotImplementedError("from_exported_program: batch_norm in training mode; export "
                                  "the model after model.eval()")
    x = a["input"]
    dtype, c = x.struct_info.dtype, x.struct_info.shape[1].value
    call = make("nn.batch_norm", x, _vector(a["weight"], c, 1, dtype),
                _vector(a["bias"], c, 0, dtype), a["running_mean"], a["running_var"],
                axis=1, epsilon=a["eps"], momentum=a.get("momentum", 0.1), training=False)
    if node.target.__name__.startswith("batch_norm"):  # the undecomposed op: one result
        bn = imp.emit(call)
        return imp.emit(rx.TupleGetItem(bn, 0, bn.struct_info.fields[0]))
    return call  # (out, mean, var): `getitem` picks result 0


@converts("_native_batch_norm_legit_functional.default")
def _batch_norm_training(node: Any, imp: Any) -> Any:
    """Training-mode batch norm (a model exported in .train()): batch statistics, as TVM 0.27
    gives it -- (out, new running mean, then zeros for the saved statistics torch keeps for
    the backward pass)."""
    a = imp.named_args(node)
    x = a["input"]
    dtype, c = x.struct_info.dtype, x.struct_info.shape[1].value
    bn = imp.emit(make("nn.batch_norm", x, _vector(a["weight"], c, 1, dtype),
                       _vector(a["bias"], c, 0, dtype), a["running_mean"], a["running_var"],
                       axis=1, epsilon=a["eps"], momentum=a["momentum"], training=True))
    out = imp.emit(rx.TupleGetItem(bn, 0, bn.struct_info.fields[0]))
    mean = imp.emit(rx.TupleGetItem(bn, 1, bn.struct_info.fields[1]))
    reserve = imp.emit(make("zeros", [c], dtype))
    return imp.emit(as_expr((out, mean, reserve, reserve, reserve)))


@converts("_native_batch_norm_legit.no_stats")
def _batch_norm_no_stats(node: Any, imp: Any) -> Any:
    """Batch statistics without running ones (InstanceNorm decomposes to this over a
    (1, N*C, ...) view): TVM 0.27's instance_norm over the batch and spatial axes."""
    a = imp.named_args(node)
    x = a["input"]
    dtype, c = x.struct_info.dtype, x.struct_info.shape[1].value
    out = imp.emit(make("nn.instance_norm", x, _vector(a["weight"], c, 1, dtype),
                        _vector(a["bias"], c, 0, dtype), channel_axis=1,
                        axes=[0, *range(2, ndim(x))], epsilon=a["eps"]))
    return (out, None, None)  # torch also returns the batch mean and rstd (for training)


@converts("native_layer_norm.default", "layer_norm.default")
def _layer_norm(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    x, shape = a["input"], list(a["normalized_shape"])
    dtype = x.struct_info.dtype
    gamma = const(np.ones(shape, dtype)) if a["weight"] is None else a["weight"]
    beta = const(np.zeros(shape, dtype)) if a["bias"] is None else a["bias"]
    axes = list(range(-len(shape), 0))
    out = imp.emit(make("nn.layer_norm", x, gamma, beta, axes=axes, epsilon=a["eps"]))
    # native_layer_norm also returns mean and rstd (for training), never used in inference
    return (out, None, None) if node.target.__name__.startswith("native") else out


@converts("gelu.default")
def _gelu(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("nn.gelu_tanh" if a["approximate"] == "tanh" else "nn.gelu", a["self"])


@converts("embedding.default")
def _embedding(node: Any, imp: Any) -> rx.Call:
    """TVM 0.27's form: int32 indices; more than 1-d ones flattened for the take and the
    result reshaped back."""
    weight, indices = imp.retrieve_args(node)[:2]
    indices = imp.emit(make("astype", indices, "int32"))
    sinfo = indices.struct_info
    if sinfo.ndim == 1:
        return make("take", weight, indices, axis=0)
    flat = imp.emit(make("reshape", indices, [-1]))
    rows = imp.emit(make("take", weight, flat, axis=0))
    return make("reshape", rows, [*sinfo.shape, weight.struct_info.shape[-1]])


@converts("native_group_norm.default", "group_norm.default")
def _group_norm(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    x = a["input"]
    dtype, c = x.struct_info.dtype, x.struct_info.shape[1].value
    groups = a.get("group", a.get("num_groups"))
    out = imp.emit(make("nn.group_norm", x, _vector(a["weight"], c, 1, dtype),
                        _vector(a["bias"], c, 0, dtype), num_groups=groups, channel_axis=1,
                        axes=list(range(2, ndim(x))), epsilon=a["eps"], center=True,
                        scale=True))
    # native_group_norm also returns mean and rstd (for training), never used in inference
    return (out, None, None) if node.target.__name__.startswith("native") else out


@converts("scaled_dot_product_attention.default")
def _sdpa(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    q, k, v = a["query"], a["key"], a["value"]
    if ndim(q) == 2 and a.get("attn_mask") is None and not a.get("is_causal"):
        # (seq, dim) as relax's (batch=1, seq, heads=1, dim). NOTE: TVM 0.27 inserts the
        # head axis at 1, which makes relax read the sequence as heads (a wrong result).
        q, k, v = (imp.emit(make("expand_dims", t, [0])) for t in (q, k, v))
        q, k, v = (imp.emit(make("expand_dims", t, [2])) for t in (q, k, v))
        out = imp.emit(make("nn.attention", q, k, v, scale=a.get("scale")))
        return make("squeeze", out, axis=[0, 2])
    if ndim(q) != 4 or a.get("dropout_p", 0.0) not in (0, 0.0):
        raise NotImplementedError("from_exported_program: scaled_dot_product_attention is "
                                  "supported on 4-d (batch, heads, seq, dim) inputs without "
                                  "dropout")
    # torch's layout is (batch, heads, seq, dim); relax's attention takes (batch, seq, heads, dim)
    q, k, v = (imp.emit(make("permute_dims", t, [0, 2, 1, 3])) for t in (q, k, v))
    causal = "TopLeft" if a.get("is_causal") else None
    mask = a.get("attn_mask")
    if mask is None:
        out = make("nn.attention", q, k, v, scale=a.get("scale"), causal_mask=causal)
    else:
        out = make("nn.attention_bias", q, k, v, mask, scale=a.get("scale"), causal_mask=causal)
    return make("permute_dims", imp.emit(out), [0, 2, 1, 3])
