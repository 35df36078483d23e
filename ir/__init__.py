"""The IR containers shared by every layer: IRModule, GlobalVar, struct info, the graph IR."""

from .module import GlobalVar, IRModule
from . import ops  # noqa: F401,E402 (registers the high-level operators)
from .structural import assert_structural_equal, structural_equal, structural_hash
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
    "assert_structural_equal", "structural_equal", "structural_hash",
]
