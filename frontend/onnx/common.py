"""Helpers shared by the ONNX converters."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import expr as rx
from ...ir.op import op_attr
from ...ir.ops.base import const, scalar_const


def make(name: str, *args: Any, **attrs: Any) -> rx.Call:
    """A call of the registered relax op `relax.<name>` (struct info inferred)."""
    return op_attr(f"relax.{name}", "make")(*args, **attrs)


def ndim(x: rx.Expr) -> int:
    return x.struct_info.ndim


def dtype_of(x: rx.Expr) -> str:
    return x.struct_info.dtype


def static_value(x: Any, what: str) -> np.ndarray:
    """The numpy value of a constant input (shapes, axes, pads must be known at import)."""
    if isinstance(x, rx.Constant):
        return x.data.numpy()
    raise NotImplementedError(f"from_onnx: {what} must be a constant (an initializer or a "
                              "Constant node); a computed one is not supported")


def axes_of(ins: list, attrs: dict, index: int, opset_moved: int, imp: Any) -> list[int] | None:
    """Axes given as an attribute (old opsets) or as input `index` (opset >= opset_moved)."""
    if len(ins) > index and ins[index] is not None:
        return [int(a) for a in static_value(ins[index], "axes")]
    return list(attrs["axes"]) if "axes" in attrs else None


def constant(value: Any, dtype: str | None = None) -> rx.Constant:
    """`const`, but a 0-d value stays 0-d (np.ascontiguousarray in `const` makes it 1-d)."""
    data = np.asarray(value, dtype=dtype)
    if data.ndim == 0:
        return scalar_const(data.item(), data.dtype.name)
    return const(data)
