"""The IR containers shared by every layer: IRModule, GlobalVar, struct info, the graph IR."""

from .module import GlobalVar, IRModule
from .struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)

__all__ = [
    "GlobalVar", "IRModule", "StructInfo", "ObjectStructInfo", "PrimStructInfo",
    "ShapeStructInfo", "TensorStructInfo", "TupleStructInfo", "FuncStructInfo",
]
