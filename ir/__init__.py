"""The IR containers shared by every layer: IRModule, GlobalVar, struct info, the graph IR."""

from .expr import Op
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

Array = tuple  # TVM's tuple results: `isinstance(out, tvm.ir.Array)` holds for VM tuples

__all__ = [
    "Array", "GlobalVar", "IRModule", "Op", "StructInfo", "ObjectStructInfo", "PrimStructInfo",
    "ShapeStructInfo", "TensorStructInfo", "TupleStructInfo", "FuncStructInfo",
    "assert_structural_equal", "structural_equal", "structural_hash",
]


def __getattr__(name: str) -> object:
    # `tvm.ir.transform` is TVM's other name for `tvm.transform` (module_pass, PassContext);
    # the pass infrastructure sits above ir/, so it is imported on first use
    if name == "transform":
        import importlib

        return importlib.import_module("..transform", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

