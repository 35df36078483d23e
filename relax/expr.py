"""`tvm.relax.expr`: the graph IR's expression classes (ir/expr.py), by TVM's module path."""

from ..ir.expr import (  # noqa: F401
    Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, Expr, ExternFunc,
    Function, If, MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple, TupleGetItem, Var,
    VarBinding,
)
from ..ir.expr import DataTypeImm  # noqa: F401
from ..ir.expr import make_shape  # noqa: F401
from ..ir.expr import update_struct_info as _update_type  # noqa: F401 (TVM's private name)
from ..ir.ops.base import const  # noqa: F401

__all__ = ["Binding", "BindingBlock", "Call", "Constant", "DataflowBlock", "DataflowVar", "Expr",
           "ExternFunc", "Function", "If", "MatchCast", "PrimValue", "SeqExpr", "ShapeExpr",
           "StringImm", "Tuple", "TupleGetItem", "Var", "VarBinding", "const", "DataTypeImm"]
__all__ += ["make_shape"]
