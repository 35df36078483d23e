"""Quantization and searching operators: `quantize`, `dequantize`, `bucketize`, `median` and
`multinomial_from_uniform` (TVM 0.27's `relax.op.qdq`, `search`, `statistical`, `sampling`).

Struct info follows TVM: `quantize` keeps the data's shape in `out_dtype`; `median` over one
axis is a tuple (values, int64 indices), over every axis a 0-d tensor; `bucketize` gives
int64 (int32 with `out_int32=True`) bucket numbers of the input's shape.
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OPAQUE, call, fmt, norm_axis, op_error, register, same_dim, tensor_arg,
)

QUANT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "float8_e4m3fn", "float8_e5m2",
                "float16")


def _is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


def _check_qparam(name: str, c: rx.Call, i: int, what: str, data: si.TensorStructInfo,
                  axis: int) -> None:
    """A scale or zero point is a scalar or has one value per slice of `axis`."""
    p = tensor_arg(name, c, i, what)
    if p.shape is None or data.shape is None or len(p.shape) == 0:
        return
    if len(data.shape) == 0:  # a scalar input takes scalar parameters only
        if len(p.shape) != 1 or same_dim(p.shape[0], tx.const(1, "int64")) is not True:
            raise op_error(name, f"{what} has shape {fmt(p.shape)}; a scalar input needs a "
                                 f"scalar {what}")
        return
    ok = len(p.shape) == 1 and (same_dim(p.shape[0], data.shape[axis]) is not False or
                                same_dim(p.shape[0], tx.const(1, "int64")) is True)
    if not ok:
        raise op_error(name, f"{what} has shape {fmt(p.shape)}; it must be a scalar or hold "
                             f"{fmt((data.shape[axis],))} values (data axis {axis})")


def _infer_qdq(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    out_dtype = c.attr("out_dtype")
    if name == "relax.quantize":
        if x.dtype and not _is_float(x.dtype):
            raise op_error(name, f"data must be a float tensor, got {x.dtype}")
        if out_dtype not in QUANT_DTYPES:
            raise op_error(name, f"out_dtype must be one of {', '.join(QUANT_DTYPES)}, got "
                                 f"{out_dtype}")
    elif not _is_float(out_dtype):
        raise op_error(name, f"out_dtype must be a float type, got {out_dtype}")
    axis = norm_axis(name, c.attr("axis"), x.ndim) if x.ndim > 0 else 0
    _check_qparam(name, c, 1, "scale", x, axis)
    _check_qparam(name, c, 2, "zero_point", x, axis)
    # NOTE: as TVM 0.27, data of unknown dtype leaves the result's dtype unknown too
    return si.TensorStructInfo(x.shape, out_dtype if x.dtype else "", x.ndim)


def quantize(data: Any, scale: Any, zero_point: Any, axis: int = -1,
             out_dtype: str = "int8") -> rx.Call:
    """`clip(round(data / scale) + zero_point)` in `out_dtype`."""
    return call("relax.quantize", (data, scale, zero_point), out_dtype=str(out_dtype),
                axis=int(axis))


def dequantize(data: Any, scale: Any, zero_point: Any, axis: int = -1,
               out_dtype: str = "float32") -> rx.Call:
    """`(data - zero_point) * scale` in `out_dtype`."""
    return call("relax.dequantize", (data, scale, zero_point), out_dtype=str(out_dtype),
                axis=int(axis))


def _infer_bucketize(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.bucketize", c, 0, "input_tensor")
    b = tensor_arg("relax.bucketize", c, 1, "boundaries")
    if b.ndim not in (-1, 1):
        raise op_error("relax.bucketize", f"boundaries must be a 1-d tensor, got rank {b.ndim}")
    if x.dtype and b.dtype and x.dtype != b.dtype:
        raise op_error("relax.bucketize", f"input_tensor and boundaries must have the same "
                                          f"dtype, got {x.dtype} and {b.dtype}")
    return si.TensorStructInfo(x.shape, "int32" if c.attr("out_int32") else "int64", x.ndim)


def bucketize(input_tensor: Any, boundaries: Any, out_int32: bool = False,
              right: bool = False) -> rx.Call:
    """The bucket of each element among sorted `boundaries` (torch.bucketize)."""
    return call("relax.bucketize", (input_tensor, boundaries), out_int32=bool(out_int32),
                right=bool(right))


def _infer_median(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.median", c, 0, "the input")
    axes = c.attr("axis")
    if axes is None:
        return si.TensorStructInfo((), x.dtype, 0)
    if len(axes) != 1:
        raise op_error("relax.median", f"takes one axis or none, got {list(axes)}")
    if x.shape is None:
        ndim = -1 if x.ndim < 0 else x.ndim - (0 if c.attr("keepdims") else 1)
        return si.TupleStructInfo((si.TensorStructInfo(None, x.dtype, ndim),
                                   si.TensorStructInfo(None, "int64", ndim)))
    axis = norm_axis("relax.median", axes[0], len(x.shape))
    keep = (tx.const(1, "int64"),) if c.attr("keepdims") else ()
    shape = x.shape[:axis] + keep + x.shape[axis + 1:]
    return si.TupleStructInfo((si.TensorStructInfo(shape, x.dtype),
                               si.TensorStructInfo(shape, "int64")))


def median(x: Any, axis: Any = None, keepdims: bool = False) -> rx.Call:
    """The lower median over `axis` (values and their indices), or over every element."""
    axes = None if axis is None else tuple(int(a) for a in (
        axis if isinstance(axis, (list, tuple)) else (axis,)))
    return call("relax.median", (x,), axis=axes, keepdims=bool(keepdims))


def _infer_multinomial(c: rx.Call) -> si.StructInfo:
    name = "relax.multinomial_from_uniform"
    p = tensor_arg(name, c, 0, "prob")
    u = tensor_arg(name, c, 1, "uniform_sample")
    idx = tensor_arg(name, c, 2, "sample_indices")
    for s, what, rank in ((p, "prob", 2), (u, "uniform_sample", 2), (idx, "sample_indices", 2)):
        if s.ndim not in (-1, rank):
            raise op_error(name, f"{what} must be a rank-{rank} tensor, got rank {s.ndim}")
    if idx.dtype and not idx.dtype.startswith("int"):
        raise op_error(name, f"sample_indices must hold integers, got {idx.dtype}")
    if u.shape is not None and idx.shape is not None and \
            same_dim(u.shape[0], idx.shape[0]) is False:
        raise op_error(name, f"uniform_sample {fmt(u.shape)} and sample_indices "
                             f"{fmt(idx.shape)} must have as many rows")
    # as TVM: the samples take uniform_sample's shape, or its rank when the shape is unknown
    return si.TensorStructInfo(u.shape, c.attr("dtype"), u.ndim if u.shape is None else 2)


def multinomial_from_uniform(prob: Any, uniform_sample: Any, sample_indices: Any,
                             dtype: str = "int64") -> rx.Call:
    """For each sample, the first token whose cumulative probability reaches its uniform
    number (row `sample_indices[i]` of `prob`)."""
    return call("relax.multinomial_from_uniform", (prob, uniform_sample, sample_indices),
                dtype=str(dtype))


register("relax.quantize", _infer_qdq, quantize, INJECTIVE)
register("relax.dequantize", _infer_qdq, dequantize, INJECTIVE)
register("relax.bucketize", _infer_bucketize, bucketize, OPAQUE)
register("relax.median", _infer_median, median, OPAQUE)
register("relax.multinomial_from_uniform", _infer_multinomial, multinomial_from_uniform,
         OPAQUE)
