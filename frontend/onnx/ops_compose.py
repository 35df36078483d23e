"""ONNX ops with no single relax op, built from existing ones: InstanceNormalization and
constant-mode Pad."""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import constant, dtype_of, make, ndim, static_value
from .registry import converts


@converts("InstanceNormalization")
def _instance_norm(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    x, scale, bias = ins
    rank, dtype = ndim(x), dtype_of(x)
    axes = list(range(2, rank))
    mean = imp.emit(make("mean", x, axes, keepdims=True))
    centered = imp.emit(make("subtract", x, mean))
    var = imp.emit(make("mean", imp.emit(make("multiply", centered, centered)), axes,
                        keepdims=True))
    eps = constant(attrs.get("epsilon", 1e-5), dtype)
    normed = imp.emit(make("divide", centered, imp.emit(make("sqrt", imp.emit(
        make("add", var, eps))))))
    per_channel = [1, -1] + [1] * (rank - 2)
    scaled = imp.emit(make("multiply", normed, imp.emit(make("reshape", scale, per_channel))))
    return make("add", scaled, imp.emit(make("reshape", bias, per_channel)))


@converts("Pad")
def _pad(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    mode = attrs.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode != "constant":
        raise NotImplementedError(f"from_onnx: Pad mode {mode!r} (only 'constant')")
    x = ins[0]
    rank, dtype = ndim(x), dtype_of(x)
    if imp.opset < 11:
        pads, value = list(attrs["pads"]), attrs.get("value", 0.0)
    else:
        pads = [int(v) for v in static_value(ins[1], "Pad pads")]
        value = (static_value(ins[2], "Pad value").item()
                 if len(ins) > 2 and ins[2] is not None else 0)
    axes = (list(range(rank)) if len(ins) < 4 or ins[3] is None else
            [int(a) % rank for a in static_value(ins[3], "Pad axes")])
    n = len(axes)
    for axis, before, after in zip(axes, pads[:n], pads[n:]):
        x = _pad_axis(x, axis, before, after, value, dtype, imp)
    return x


def _pad_axis(x: Any, axis: int, before: int, after: int, value: Any, dtype: str,
              imp: Any) -> Any:
    """Concatenate constant blocks on one axis (negative pads crop)."""
    shape = [int(d) for d in x.struct_info.shape]
    if before < 0 or after < 0:
        x = imp.emit(make("strided_slice", x, [axis], [max(-before, 0)],
                          [shape[axis] - max(-after, 0)]))
        shape[axis] -= max(-before, 0) + max(-after, 0)
        before, after = max(before, 0), max(after, 0)
    parts = []
    for width in (before, None, after):
        if width is None:
            parts.append(x)
        elif width:
            block = list(shape)
            block[axis] = width
            parts.append(constant(np.full(block, value, dtype)))
    return imp.emit(make("concat", parts, axis=axis)) if len(parts) > 1 else x
