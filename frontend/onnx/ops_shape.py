"""Converters of ONNX ops that compute or use shapes: Shape, Gather, Slice, Split, Expand,
ConstantOfShape, Range.

Shape arithmetic is folded at import time with numpy when its inputs are constants (static
shapes), which is how exported models compute Reshape targets.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

import numpy as np

from ...ir import expr as rx

from .common import constant, make, ndim, static_value
from .registry import converts


def _static_shape(x: Any) -> list[int] | None:
    shape = x.struct_info.shape
    try:
        return [int(d) for d in shape]
    except TypeError:
        return None


@converts("Shape")
def _shape(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    shape = _static_shape(ins[0])
    if shape is None:
        raise NotImplementedError("from_onnx: Shape of a tensor with symbolic dims")
    start, end = attrs.get("start", 0), attrs.get("end", len(shape))
    return constant(np.array(shape[start:end], "int64"))


@converts("Gather")
def _gather(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    axis = attrs.get("axis", 0)
    if isinstance(ins[0], rx.Constant) and isinstance(ins[1], rx.Constant):
        return constant(np.take(ins[0].data.numpy(), ins[1].data.numpy(), axis=axis))
    idx = ins[1]
    if isinstance(idx, rx.Constant):  # negative indices count from the end
        size = int(ins[0].struct_info.shape[axis])
        idx = constant(np.where((v := idx.data.numpy()) < 0, v + size, v))
    return make("take", ins[0], idx, axis=axis)


@converts("Slice")
def _slice(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    if imp.opset < 10:
        starts, ends = list(attrs["starts"]), list(attrs["ends"])
        axes, steps = list(attrs.get("axes", range(len(starts)))), [1] * len(starts)
    else:
        starts = [int(v) for v in static_value(ins[1], "Slice starts")]
        ends = [int(v) for v in static_value(ins[2], "Slice ends")]

        axes = ([int(v) for v in static_value(ins[3], "Slice axes")]
                if len(ins) > 3 and ins[3] is not None else list(range(len(starts))))
        steps = ([int(v) for v in static_value(ins[4], "Slice steps")]
                 if len(ins) > 4 and ins[4] is not None else [1] * len(starts))

    if isinstance(ins[0], rx.Constant):
        data = ins[0].data.numpy()
        index = [slice(None)] * data.ndim
        for a, b, e, s in zip(axes, starts, ends, steps):
            index[a] = slice(b, e, s)
        return constant(data[tuple(index)])
    rank = ndim(ins[0])
    return make("strided_slice", ins[0], [a % rank for a in axes], starts, ends, steps)


@converts("Split")
def _split(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    axis = attrs.get("axis", 0) % ndim(ins[0])
    if len(ins) > 1 and ins[1] is not None:
        sizes = [int(v) for v in static_value(ins[1], "Split sizes")]
    else:
        sizes = attrs.get("split")
    if sizes is None:
        n = attrs.get("num_outputs", len(node.output))
        extent = int(ins[0].struct_info.shape[axis])
        chunk = -(-extent // n)  # opset 18: the last piece may be smaller
        sizes = [min(chunk, extent - i * chunk) for i in range(n)]
    bounds = list(accumulate(sizes))[:-1]
    parts = imp.emit(make("split", ins[0], bounds, axis=axis))
    return [rx.TupleGetItem(parts, i, parts.struct_info.fields[i]) for i in range(len(sizes))]


@converts("Expand")
def _expand(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    target = [int(v) for v in static_value(ins[1], "Expand shape")]
    shape = _static_shape(ins[0])
    if shape is None:
        raise NotImplementedError("from_onnx: Expand of a tensor with symbolic dims")
    out = list(np.broadcast_shapes(tuple(shape), tuple(target)))
    return make("broadcast_to", ins[0], out)


@converts("ConstantOfShape")
def _constant_of_shape(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    from onnx import numpy_helper

    shape = [int(v) for v in static_value(ins[0], "ConstantOfShape shape")]
    value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else \
        np.zeros((1,), "float32")
    return constant(np.full(shape, value.reshape(-1)[0], value.dtype))


@converts("Range")
def _range(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    start, limit, delta = (static_value(i, "Range bounds") for i in ins)
    return constant(np.arange(start, limit, delta, dtype=start.dtype))



