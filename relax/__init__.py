"""`tvm.relax` as users meet it: build, VirtualMachine, BlockBuilder, the graph IR's classes.

This package is the TVM-facing facade: its modules sit on TVM's own paths
(`relax/transform/`, `relax/op/nn.py`, `relax/analysis/`, ...) and re-export from the
layers (`ir/`, `transforms/`, `vm/`, `frontend/`, `backend/`), which never import it.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import (  # noqa: F401 (relax.Var, relax.Call ... as TVM exports them)
    Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, Expr, ExternFunc,
    Function, If, MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple, TupleGetItem, Var,
    VarBinding,
)
from ..ir.expr import DataTypeImm  # noqa: F401 (R.dtype("float32") as a value)
from ..ir.global_info import DummyGlobalInfo, VDevice  # noqa: F401
from ..ir.module import GlobalVar  # noqa: F401
from ..ir.legacy_types import DynTensorType  # noqa: F401 (the 2022-08 MLC notebooks' type)
from ..ir.ops.base import const  # noqa: F401 (relax.const)
from ..ir.struct_info import (  # noqa: F401
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)
from ..ir.struct_info import ShapeStructInfo as ShapeType  # noqa: F401 (TVM 0.27's names)
from ..ir.struct_info import TensorStructInfo as TensorType  # noqa: F401
from ..ir.struct_info import TupleStructInfo as TupleType  # noqa: F401
from ..ir.struct_info import FuncStructInfo as FuncType  # noqa: F401
from ..ir.struct_info import ObjectStructInfo as ObjectType  # noqa: F401
from ..ir.struct_info import ObjectStructInfo as AnyType  # noqa: F401 (R.Any's type)
from ..ir.struct_info import StructInfo as Type  # noqa: F401
from ..ir.struct_info import PackedFuncType  # noqa: F401
from ..script.relax import call_tir_inplace, call_tir_with_grad  # noqa: F401
from ..script.relax import (  # noqa: F401 (relax.call_tir(...) as BlockBuilder users write it)
    call_dps_packed, call_packed, call_pure_packed, call_tir, dataflow, output, prim_value,
)
from ..tir.expr import Span  # noqa: F401
from ..transforms.bind_params import BindParams  # noqa: F401 (relax.BindParams, old spelling)
from ..transforms.pipeline import get_pipeline  # noqa: F401
from ..transforms.relax_utils import (  # noqa: F401
    convert_to_expr, get_shape_of, register_pipeline,
)
from ..vm.executable import Executable as VMExecutable  # noqa: F401
from ..vm.vm import VirtualMachine  # noqa: F401
from ..vm.instrument import VMInstrumentReturnKind  # noqa: F401
from ..vm.exec_builder import ExecBuilder  # noqa: F401
from . import (  # noqa: F401
    analysis, backend, block_builder, dpl, expr_functor, frontend, op, pipeline, testing,
    training,
    transform, utils, vm,
)
from .block_builder import BlockBuilder  # noqa: F401
from .base_py_module import BasePyModule  # noqa: F401
from .binding_rewrite import DataflowBlockRewrite  # noqa: F401
from . import expr  # noqa: F401,E402 (tvm.relax.expr)
from .expr_functor import PyExprMutator, PyExprVisitor  # noqa: F401
from ..transforms.expr_functor import ExprFunctor  # noqa: F401
from .vm_build import build  # noqa: F401


def extern(name: str, struct_info: Any = None) -> ExternFunc:
    """`relax.extern("name")`: a function the VM finds by name in the global registry."""
    return ExternFunc(name) if struct_info is None else ExternFunc(name, struct_info)


def get_default_pipeline(target: Any = None) -> Any:
    """The passes `relax.build` runs by default (the same for every target tvmlite builds)."""
    return get_pipeline("default")


# NOTE: the 2022-08 MLC notebooks call operators from `relax` itself (`relax.multiply`)
for _name, _make in op.builders().items():
    globals().setdefault(_name, _make)

__all__ = ["build", "vm", "VirtualMachine", "transform", "BindParams", "BlockBuilder", "op",
           "const", "get_pipeline", "PyExprMutator", "PyExprVisitor", "expr_functor", "Var",
           "TensorStructInfo"]
