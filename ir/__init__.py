"""The IR containers shared by every layer: IRModule, GlobalVar, struct info, the graph IR."""

from ..tir.attrs import Attrs
from .base import Span
from .expr import Call, Expr, Op, Tuple, TupleGetItem
from .global_info import DummyGlobalInfo, GlobalInfo, VDevice
from .ir_names import (  # noqa: F401 (TVM 0.27's tvm.ir names)
    BaseFunc, CallingConv, Constant, DictAttrs, EnvFunc, ExprOperand, ExprWithOp, Map, Node,
    PointerType, Range, SequentialSpan, SourceName, StringImm, StringType, Var, is_prim_expr,
    is_prim_var, load_json, make_node, register_op_attr, save_json,
)
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

# TVM 0.27 renamed struct info to types (tvm.ir.PrimType("int64"), relax.TensorType(...)):
# the same objects under those names
PrimType, Type, TupleType, FuncType = PrimStructInfo, StructInfo, TupleStructInfo, FuncStructInfo

Array = tuple  # TVM's tuple results: `isinstance(out, tvm.ir.Array)` holds for VM tuples

__all__ = [
    "Array", "Attrs", "Call", "DummyGlobalInfo", "Expr", "FuncType", "GlobalInfo", "PrimType",
    "Span", "Tuple", "TupleType", "Type",
    "TupleGetItem", "VDevice", "GlobalVar", "IRModule", "Op", "StructInfo", "ObjectStructInfo",
    "PrimStructInfo",
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

