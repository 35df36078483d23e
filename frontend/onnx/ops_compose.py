"""ONNX ops that map onto several relax ops, or onto one by cases: InstanceNormalization, Pad
and Resize."""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import constant, dtype_of, make, ndim, static_value
from .registry import converts


def _text(attrs: dict, key: str, default: str) -> str:
    value = attrs.get(key, default)
    return value.decode() if isinstance(value, bytes) else value


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
    mode = _text(attrs, "mode", "constant")
    if mode not in ("constant", "reflect", "edge"):
        raise NotImplementedError(f"from_onnx: Pad mode {mode!r} (constant, reflect and edge "
                                  "are supported)")
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
    if mode != "constant":
        if min(pads) < 0:
            raise NotImplementedError(f"from_onnx: Pad mode {mode!r} with negative pads")
        widths = [0] * (2 * rank)
        for axis, before, after in zip(axes, pads[:n], pads[n:]):
            widths[2 * axis], widths[2 * axis + 1] = before, after
        return make("nn.pad", x, widths, pad_mode=mode)
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


_RESIZE_MODES = {"nearest": "nearest_neighbor", "linear": "linear"}
_RESIZE_COORDS = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel")


@converts("Resize", "Upsample")
def _resize(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    """Resize of an NCHW tensor's spatial axes is `image.resize2d`; nearest by whole-number
    factors on any axes repeats each element instead."""
    mode, x = _text(attrs, "mode", "nearest"), ins[0]
    shape = [int(d) for d in x.struct_info.shape]
    if attrs.get("antialias", 0) or _text(attrs, "keep_aspect_ratio_policy", "stretch") \
            != "stretch":
        raise NotImplementedError("from_onnx: Resize with antialias or a keep_aspect_ratio_policy"
                                  " is not supported")
    axes = [int(a) % len(shape) for a in attrs.get("axes", range(len(shape)))]
    if len(ins) > 3 and ins[3] is not None:
        sizes = list(shape)
        for axis, size in zip(axes, static_value(ins[3], "Resize sizes")):
            sizes[axis] = int(size)
    else:
        given = static_value(ins[2] if len(ins) > 2 else ins[1], "Resize scales")
        scales = [1.0] * len(shape)
        for axis, scale in zip(axes, given):
            scales[axis] = float(scale)
        if any(d * f != int(d * f) for d, f in zip(shape, scales)):
            # ONNX then maps coordinates by the scale, not by out/in as resize2d does
            raise NotImplementedError(f"from_onnx: Resize scales {list(scales)} of shape "
                                      f"{shape} give fractional sizes; give `sizes` instead")
        sizes = [int(d * f) for d, f in zip(shape, scales)]
    default_coords = "asymmetric" if node.op_type == "Upsample" or imp.opset < 11 \
        else "half_pixel"
    coords = _text(attrs, "coordinate_transformation_mode", default_coords)
    rounding = _text(attrs, "nearest_mode", "floor" if node.op_type == "Upsample"
                     else "round_prefer_floor")
    if len(shape) == 4 and sizes[:2] == shape[:2] and mode in _RESIZE_MODES \
            and coords in _RESIZE_COORDS:
        return make("image.resize2d", x, sizes[2:], method=_RESIZE_MODES[mode],
                    coordinate_transformation_mode=coords,
                    rounding_method=rounding if mode == "nearest" else "")
    factors = [s / d for s, d in zip(sizes, shape)]
    # With a whole-number factor f, output i reads input i // f in these combinations
    repeats = (coords == "asymmetric" and rounding == "floor") or (
        coords in ("half_pixel", "pytorch_half_pixel") and rounding.startswith("round"))
    if mode != "nearest" or any(f != int(f) or f < 1 for f in factors) or not repeats:
        raise NotImplementedError(
            f"from_onnx: Resize mode {mode!r} ({coords}, {rounding}) from {shape} to {sizes}: "
            "supported are nearest and linear on the last two axes of a 4-d tensor "
            f"(coordinate modes {', '.join(_RESIZE_COORDS)}), and nearest by whole-number "
            "factors on any axes")
    for axis, factor in enumerate(int(f) for f in factors):
        if factor > 1:
            grown = imp.emit(make("expand_dims", x, axis + 1))
            wide = shape[:axis + 1] + [factor] + shape[axis + 1:]
            shape[axis] *= factor
            x = imp.emit(make("reshape", imp.emit(make("broadcast_to", grown, wide)), shape))
    return x
