"""Elementwise operators: binary arithmetic and comparisons (numpy broadcasting), unary math,
`where`, `astype`, and the elementwise activations of `R.nn`."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    BROADCAST, ELEMWISE, as_expr, broadcast, call, op_error, out_tensor, register,
    scalar_const, tensor_arg,
)

BINARY = ("add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum",
          "minimum", "floor_mod")
COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
LOGICAL = ("logical_and", "logical_or")
UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "negative", "abs", "floor", "ceil",
         "round", "sin", "cos", "erf", "square", "logical_not")
NN_UNARY = ("relu", "gelu", "gelu_tanh", "silu")


def _operands(name: str, a: Any, b: Any) -> tuple[rx.Expr, rx.Expr]:
    """Python numbers beside a tensor become 0-d constants of the tensor's dtype (TVM's rule
    for literals: they never widen the tensor)."""
    ea = None if isinstance(a, (int, float)) else as_expr(a)
    eb = None if isinstance(b, (int, float)) else as_expr(b)
    if ea is None and eb is None:
        raise op_error(name, "needs at least one tensor operand")
    if ea is None:
        ea = _literal(a, eb)
    if eb is None:
        eb = _literal(b, ea)
    return ea, eb


def _literal(x: int | float, other: rx.Expr) -> rx.Expr:
    """A number beside a scalar (`R.add(n, 1)`, n an `R.Prim`) is a scalar of its dtype, as
    TVM 0.27 computes on scalars; beside a tensor it is a 0-d constant."""
    if isinstance(other.struct_info, si.PrimStructInfo):
        return as_expr(tx.const(x, other.struct_info.dtype))
    return scalar_const(x, _dtype_of(other) or "float32")


def _dtype_of(e: rx.Expr) -> str:
    s = e.struct_info
    return s.dtype if isinstance(s, (si.TensorStructInfo, si.PrimStructInfo)) else ""


def _infer_binary(out_bool: bool) -> Any:
    def infer(c: rx.Call) -> si.StructInfo:
        name = c.op.name  # type: ignore[attr-defined]
        a, b = _operand_sinfo(name, c, 0, "lhs"), _operand_sinfo(name, c, 1, "rhs")
        if a.dtype and b.dtype and a.dtype != b.dtype:
            raise op_error(name, f"operands must have the same dtype, got {a.dtype} and "
                                 f"{b.dtype} (use R.astype to convert one)")
        dtype = "bool" if out_bool else (a.dtype or b.dtype)
        if all(isinstance(arg.struct_info, si.PrimStructInfo) for arg in c.args):
            return si.PrimStructInfo(dtype)
        if a.shape is None or b.shape is None:
            ndim = max(a.ndim, b.ndim) if a.ndim >= 0 and b.ndim >= 0 else -1
            return si.TensorStructInfo(None, dtype, ndim)
        shape = broadcast(name, a.shape, b.shape)
        return out_tensor(shape, dtype, max(len(a.shape), len(b.shape)))
    return infer


def _operand_sinfo(name: str, c: rx.Call, i: int, label: str) -> si.TensorStructInfo:
    """A tensor operand's struct info; an `R.Prim` scalar operand counts as a 0-d tensor."""
    s = c.args[i].struct_info
    if isinstance(s, si.PrimStructInfo):
        return si.TensorStructInfo((), s.dtype)
    return tensor_arg(name, c, i, label)


def _infer_unary(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    float_only = name.split(".")[-1] not in ("negative", "abs", "relu", "floor", "ceil",
                                             "round", "square", "logical_not")
    if float_only and x.dtype and not x.dtype.startswith(("float", "bfloat")):
        raise op_error(name, f"needs a float tensor, got {x.dtype}")
    return x


def _infer_astype(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.astype", c, 0, "the input")
    return si.TensorStructInfo(x.shape, c.attr("dtype"), x.ndim)


def _infer_where(c: rx.Call) -> si.StructInfo:
    cond = tensor_arg("relax.where", c, 0, "the condition")
    a, b = tensor_arg("relax.where", c, 1, "x1"), tensor_arg("relax.where", c, 2, "x2")
    if cond.dtype and cond.dtype != "bool":
        raise op_error("relax.where", f"the condition must be a bool tensor, got {cond.dtype}")
    if a.dtype and b.dtype and a.dtype != b.dtype:
        raise op_error("relax.where", f"x1 and x2 must have the same dtype, got {a.dtype} and "
                                      f"{b.dtype}")
    if cond.shape is None or a.shape is None or b.shape is None:
        return si.TensorStructInfo(None, a.dtype, -1)
    shape = broadcast("relax.where", cond.shape, a.shape)
    shape = broadcast("relax.where", shape, b.shape) if shape is not None else None
    return out_tensor(shape, a.dtype or b.dtype, max(cond.ndim, a.ndim, b.ndim))


def _infer_ewise_fma(c: rx.Call) -> si.StructInfo:
    x1, x2, x3 = (tensor_arg("relax.ewise_fma", c, i, f"x{i + 1}") for i in range(3))
    dtypes = {t.dtype for t in (x1, x2, x3) if t.dtype}
    if len(dtypes) > 1:
        raise op_error("relax.ewise_fma", f"x1, x2 and x3 must have one dtype, got "
                                          f"{x1.dtype}, {x2.dtype} and {x3.dtype}")
    shapes = [t.shape for t in (x1, x2, x3)]
    if any(sh is None for sh in shapes):
        return si.TensorStructInfo(None, x1.dtype, x1.ndim)
    shape = broadcast("relax.ewise_fma", shapes[0], shapes[1])
    shape = broadcast("relax.ewise_fma", shape, shapes[2]) if shape is not None else None
    return out_tensor(shape, x1.dtype, max(x1.ndim, x2.ndim, x3.ndim))


def ewise_fma(x1: Any, x2: Any, x3: Any) -> rx.Call:
    """`x1 * x2 + x3`, elementwise (TVM's fused multiply-add op)."""
    return call("relax.ewise_fma", (x1, x2, x3))


def _binary_maker(name: str) -> Any:
    def make(x1: Any, x2: Any) -> rx.Call:
        return call(name, _operands(name, x1, x2))
    make.__name__ = name.split(".")[-1]
    return make


def _unary_maker(name: str) -> Any:
    def make(x: Any) -> rx.Call:
        return call(name, (x,))
    make.__name__ = name.split(".")[-1]
    return make


def astype(x: Any, dtype: Any) -> rx.Call:
    return call("relax.astype", (x,), dtype=str(getattr(dtype, "dtype", dtype)))


def where(condition: Any, x1: Any, x2: Any) -> rx.Call:
    a, b = _operands("relax.where", x1, x2)
    return call("relax.where", (condition, a, b))


for _n in BINARY:
    register(f"relax.{_n}", _infer_binary(False), _binary_maker(f"relax.{_n}"), BROADCAST)
for _n in COMPARE + LOGICAL:
    register(f"relax.{_n}", _infer_binary(True), _binary_maker(f"relax.{_n}"), BROADCAST)
for _n in UNARY:
    register(f"relax.{_n}", _infer_unary, _unary_maker(f"relax.{_n}"), ELEMWISE)
for _n in NN_UNARY:
    register(f"relax.nn.{_n}", _infer_unary, _unary_maker(f"relax.nn.{_n}"), ELEMWISE)
register("relax.astype", _infer_astype, astype, ELEMWISE)
register("relax.where", _infer_where, where, BROADCAST)
register("relax.ewise_fma", _infer_ewise_fma, ewise_fma, BROADCAST)
