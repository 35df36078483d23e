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


@converts("Resize", "Upsample")
def _resize(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    """Nearest-neighbour resize by whole-number factors (repeat each element f times)."""
    mode = attrs.get("mode", b"nearest")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    x = ins[0]
    shape = [int(d) for d in x.struct_info.shape]
    if len(ins) > 3 and ins[3] is not None:
        sizes = static_value(ins[3], "Resize sizes")
        factors = [s / d for s, d in zip(sizes, shape)]
    else:
        factors = list(static_value(ins[2] if len(ins) > 2 else ins[1], "Resize scales"))
    coords = attrs.get("coordinate_transformation_mode", b"half_pixel")
    coords = coords.decode() if isinstance(coords, bytes) else coords
    rounding = attrs.get("nearest_mode", b"round_prefer_floor")
    rounding = rounding.decode() if isinstance(rounding, bytes) else rounding
    # With a whole-number factor f, output i reads input i // f in these combinations
    repeats = (coords == "asymmetric" and rounding == "floor") or (
        coords in ("half_pixel", "pytorch_half_pixel") and rounding.startswith("round"))
    if node.op_type == "Upsample":
        repeats = True
    if mode != "nearest" or any(f != int(f) or f < 1 for f in factors) or not repeats:
        raise NotImplementedError(f"from_onnx: Resize mode {mode!r} ({coords}, {rounding}) "
                                  f"with scales {factors}: only nearest by whole-number "
                                  "factors, half_pixel or asymmetric+floor, is supported")
    for axis, factor in enumerate(int(f) for f in factors):
        if factor > 1:
            grown = imp.emit(make("expand_dims", x, axis + 1))
            wide = shape[:axis + 1] + [factor] + shape[axis + 1:]
            shape[axis] *= factor
            x = imp.emit(make("reshape", imp.emit(make("broadcast_to", grown, wide)), shape))
    return x
