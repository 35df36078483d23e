"""Converters of neural-network ONNX ops: convolution, pooling, normalization, activations."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir import expr as rx

from .common import constant, dtype_of, make, ndim
from .registry import converts


def _pads(attrs: dict, in_hw: list, kernel: list, strides: list, dilations: list) -> list:
    """ONNX pads [top, left, bottom, right] (explicit or from auto_pad) as relax's order."""
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for size, k, s, d in zip(in_hw, kernel, strides, dilations):
            out = math.ceil(int(size) / s)
            total = max((out - 1) * s + (k - 1) * d + 1 - int(size), 0)
            small, big = total // 2, total - total // 2
            pads.append((small, big) if auto == "SAME_UPPER" else (big, small))
        return [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
    p = list(attrs.get("pads", [0, 0, 0, 0]))
    return [p[0], p[1], p[2], p[3]]


def _check_2d(x: Any, op: str) -> None:
    if ndim(x) != 4:
        raise NotImplementedError(f"from_onnx: {op} is supported on 4-d NCHW input only")


@converts("Conv")
def _conv(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    x, w = ins[0], ins[1]
    _check_2d(x, "Conv")
    kernel = [int(d) for d in w.struct_info.shape[2:]]
    strides = list(attrs.get("strides", [1, 1]))
    dil = list(attrs.get("dilations", [1, 1]))
    pads = _pads(attrs, list(x.struct_info.shape[2:]), kernel, strides, dil)
    y = make("nn.conv2d", x, w, strides=strides, padding=pads, dilation=dil,
             groups=attrs.get("group", 1))
    if len(ins) > 2 and ins[2] is not None:
        bias = imp.emit(make("reshape", ins[2], [1, -1, 1, 1]))
        y = make("add", imp.emit(y), bias)
    return y


def _pool(op: str) -> Any:
    def convert(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
        x = ins[0]
        _check_2d(x, node.op_type)
        kernel = list(attrs["kernel_shape"])
        strides = list(attrs.get("strides", [1, 1]))
        dil = list(attrs.get("dilations", [1, 1]))
        pads = _pads(attrs, list(x.struct_info.shape[2:]), kernel, strides, dil)
        extra = {"count_include_pad": bool(attrs.get("count_include_pad", 0))} \
            if op == "nn.avg_pool2d" else {"dilation": dil}
        return make(op, x, pool_size=kernel, strides=strides, padding=pads,
                    ceil_mode=bool(attrs.get("ceil_mode", 0)), **extra)
    return convert


converts("MaxPool")(_pool("nn.max_pool2d"))
converts("AveragePool")(_pool("nn.avg_pool2d"))


@converts("GlobalAveragePool")
def _global_avg_pool(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    return make("mean", ins[0], list(range(2, ndim(ins[0]))), keepdims=True)


@converts("GlobalMaxPool")
def _global_max_pool(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    return make("max", ins[0], list(range(2, ndim(ins[0]))), keepdims=True)


@converts("BatchNormalization")
def _batch_norm(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    bn = imp.emit(make("nn.batch_norm", *ins[:5], axis=1, epsilon=attrs.get("epsilon", 1e-5),
                        momentum=attrs.get("momentum", 0.9), training=False))
    return rx.TupleGetItem(bn, 0, bn.struct_info.fields[0])


@converts("LayerNormalization")
def _layer_norm(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    x, gamma = ins[0], ins[1]
    axis = attrs.get("axis", -1) % ndim(x)
    axes = list(range(axis, ndim(x)))
    beta = ins[2] if len(ins) > 2 and ins[2] is not None else \
        constant(np.zeros([int(d) for d in gamma.struct_info.shape], dtype_of(x)))
    return make("nn.layer_norm", x, gamma, beta, axes, epsilon=attrs.get("epsilon", 1e-5))


@converts("Gelu")
def _gelu(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    approx = attrs.get("approximate", b"none")
    approx = approx.decode() if isinstance(approx, bytes) else approx
    return make("nn.gelu_tanh" if approx == "tanh" else "nn.gelu", ins[0])


@converts("ConvTranspose")
def _conv_transpose(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    """ONNX's weight is (C_in, C_out/group, kH, kW): relax's default IOHW kernel layout."""
    x, w = ins[0], ins[1]
    _check_2d(x, "ConvTranspose")
    in_hw = [int(d) for d in x.struct_info.shape[2:]]
    kernel = [int(d) for d in w.struct_info.shape[2:]]
    strides = list(attrs.get("strides", [1, 1]))
    dil = list(attrs.get("dilations", [1, 1]))
    out_pad = list(attrs.get("output_padding", [0, 0]))
    pads = _transpose_pads(attrs, in_hw, kernel, strides, dil, out_pad)
    y = make("nn.conv2d_transpose", x, w, strides=strides, padding=pads,
             output_padding=out_pad, dilation=dil, groups=attrs.get("group", 1))
    if len(ins) > 2 and ins[2] is not None:
        bias = imp.emit(make("reshape", ins[2], [1, -1, 1, 1]))
        y = make("add", imp.emit(y), bias)
    return y


def _transpose_pads(attrs: dict, in_hw: list, kernel: list, strides: list, dilations: list,
                    out_pad: list) -> list:
    """Pads [top, left, bottom, right]: given, or solved from `output_shape` / `auto_pad`.

    A transposed convolution's full output is (in - 1) * s + (k - 1) * d + 1 + output_padding;
    ONNX trims `total = full - wanted` from it, the odd one at the end (SAME_UPPER and
    output_shape) or at the start (SAME_LOWER)."""
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    wanted = list(attrs["output_shape"])[-2:] if "output_shape" in attrs else None
    if wanted is None and auto in ("SAME_UPPER", "SAME_LOWER"):
        wanted = [size * s for size, s in zip(in_hw, strides)]
    if wanted is None:
        p = list(attrs.get("pads", [0, 0, 0, 0]))
        return [p[0], p[1], p[2], p[3]]
    pads = []
    for size, k, s, d, op, want in zip(in_hw, kernel, strides, dilations, out_pad, wanted):
        total = max((size - 1) * s + (k - 1) * d + 1 + op - int(want), 0)
        small, big = total // 2, total - total // 2
        pads.append((big, small) if auto == "SAME_LOWER" else (small, big))
    return [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
