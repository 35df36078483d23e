"""The 2022-08 MLC generation's relax types: `relax.DynTensorType(ndim, dtype)`,
`relax.Var(name, shape, type)`, `x.shape_` and `x._checked_type_`.

Before struct info, a relax variable carried a shape annotation and a type annotation; the
MLC course's first notebooks build variables that way. Here both become one
TensorStructInfo, so the rest of the compiler sees today's IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tir import expr as tx
from . import struct_info as si


@dataclass(frozen=True)
class DynTensorType:
    """A tensor of rank `ndim` (-1: unknown) and `dtype` (TVM 2022's relax type)."""

    ndim: int = -1
    dtype: str = "float32"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", str(getattr(self.dtype, "dtype", self.dtype)))


def is_legacy_annotation(shape: Any, type_: Any) -> bool:
    """Whether `Var(name, shape, type_)` used the old (shape, type) annotations."""
    return isinstance(type_, DynTensorType) or isinstance(shape, (DynTensorType, list, tuple)) \
        or type(shape).__name__ == "ShapeExpr"


def sinfo_from_legacy(shape: Any, type_: Any) -> si.StructInfo:
    """The struct info of an old-style `Var(name, shape, DynTensorType(...))`."""
    if isinstance(shape, DynTensorType):
        shape, type_ = None, shape
    dims = getattr(shape, "values", shape)
    if dims is not None:
        dims = tuple(tx.const(d, "int64") if isinstance(d, int) else d for d in dims)
    dtype = type_.dtype if isinstance(type_, DynTensorType) else "float32"
    ndim = type_.ndim if isinstance(type_, DynTensorType) else -1
    if dims is not None and ndim not in (-1, len(dims)):
        raise ValueError(f"the shape has {len(dims)} dims but the type says ndim={ndim}")
    return si.TensorStructInfo(dims, dtype, len(dims) if dims is not None else ndim)


def checked_type(sinfo: Any) -> Any:
    """`x._checked_type_`: a DynTensorType for tensors; other values keep their struct info."""
    if isinstance(sinfo, si.TensorStructInfo):
        return DynTensorType(sinfo.ndim, sinfo.dtype)
    return sinfo
