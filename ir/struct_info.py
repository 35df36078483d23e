"""Struct info: what the graph IR knows statically about a value (TVM's StructInfo).

Shapes hold TIR expressions, so a symbolic dim `n` is a `tir.Var` shared by every tensor that
has it. `shape=None` means the rank may be known (`ndim`) but the dims are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tir.expr import IntImm, PrimExpr


class StructInfo:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ObjectStructInfo(StructInfo):
    pass


@dataclass(frozen=True, slots=True)
class PrimStructInfo(StructInfo):
    dtype: str = "int64"
    value: PrimExpr | None = None


@dataclass(frozen=True, slots=True)
class ShapeStructInfo(StructInfo):
    values: tuple[PrimExpr, ...] | None = None
    ndim: int = -1

    def __post_init__(self) -> None:
        if self.values is not None:
            object.__setattr__(self, "values", _dims(self.values))
            if self.ndim == -1:
                object.__setattr__(self, "ndim", len(self.values))


@dataclass(frozen=True, slots=True)
class TensorStructInfo(StructInfo):
    shape: tuple[PrimExpr, ...] | None = None
    dtype: str = ""  # "" = unknown dtype
    ndim: int = -1  # -1 = unknown rank
    vdevice: str | None = None

    def __post_init__(self) -> None:
        if self.shape is not None:
            # users write relax.TensorStructInfo((128, 128), "float32"): ints become IntImms
            object.__setattr__(self, "shape", _dims(self.shape))
            if self.ndim == -1:
                object.__setattr__(self, "ndim", len(self.shape))

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        """The shape as ints when every dim is a constant."""
        if self.shape is None or not all(isinstance(d, IntImm) for d in self.shape):
            return None
        return tuple(d.value for d in self.shape)  # type: ignore[union-attr]


@dataclass(frozen=True, slots=True)
class TupleStructInfo(StructInfo):
    fields: tuple[StructInfo, ...]


@dataclass(frozen=True, slots=True)
class FuncStructInfo(StructInfo):
    params: tuple[StructInfo, ...] | None
    ret: StructInfo
    purity: bool = True


def _dims(shape: Any) -> tuple[PrimExpr, ...]:
    if all(isinstance(d, PrimExpr) for d in shape) and isinstance(shape, tuple):
        return shape
    return tuple(IntImm("int64", int(d)) if not isinstance(d, PrimExpr) else d for d in shape)


def tensor_sinfo(shape: Any, dtype: str = "float32") -> TensorStructInfo:
    """`R.Tensor((1, 128), "float32")` from Python ints and TIR expressions."""
    from ..tir.expr import const

    dims = tuple(const(d, "int64") if isinstance(d, int) else d for d in shape)
    return TensorStructInfo(dims, dtype)
