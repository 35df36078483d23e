"""Shared machinery of the high-level operators: registration, argument conversion, shapes.

Each operator is registered by name (STYLE habit 4) with `infer_struct_info(call)` and a
`make(*args, **attrs)` builder; `R.<op>`, `relax.op.<op>` and the BlockBuilder all go through
`make`, so every call is born with its struct info. Inference errors are `OpError`s (a
ValueError) whose message names the operator; the parser adds the user's file and line.
"""

from __future__ import annotations

from typing import Any, Callable

from ...tir import expr as tx
from ...tir.functor import simplify
from .. import expr as rx
from .. import struct_info as si
from ..op import get_op, register_op
from ...vm import errors as tvm_errors

# TVM's OpPatternKind, used by AnnotateTIROpPattern / FuseOps.
ELEMWISE, BROADCAST, INJECTIVE, REDUCE, OUT_EWISE_FUSABLE, TUPLE, OPAQUE = 0, 1, 2, 3, 4, 7, 8


class OpError(ValueError, tvm_errors.OpError):
    """A call whose arguments do not fit the operator (shape, rank, dtype, attribute); also
    TVM's `tvm.error.OpError`."""


class OpTypeError(OpError, TypeError):
    """An argument of the wrong kind of value (a shape where a tensor goes): TVM 0.27 raises
    a TypeError for it."""


def op_error(name: str, msg: str) -> OpError:
    return OpError(f"R.{name.removeprefix('relax.')}: {msg}")


def register(name: str, infer: Callable[[rx.Call], si.StructInfo],
             make: Callable[..., rx.Call], pattern: int = OPAQUE) -> None:
    register_op(name, infer_struct_info=infer, make=make, op_pattern=pattern)


def call(name: str, args: tuple[Any, ...], **attrs: Any) -> rx.Call:
    """A Call of op `name` with its struct info inferred (raises OpError if it does not fit)."""
    from ..op import op_attr

    c = rx.Call(get_op(name), tuple(as_expr(a) for a in args),
                tuple((k, _freeze(v)) for k, v in attrs.items()))
    if any(isinstance(a, rx.Var) and a.struct_info is None for a in c.args):
        return c  # a variable of unknown type (`relax.Var("x")`): inferred when normalized, as TVM
    return rx.Call(c.op, c.args, c.attrs, struct_info=op_attr(name, "infer_struct_info")(c))


# Where the value a variable is bound to may be found while its function is being built (the
# parser's open frames, a BlockBuilder's open blocks): inference may look through a variable,
# as TVM's does through the BlockBuilder's LookupBinding. The builders register themselves.
BINDING_LOOKUPS: list[Callable[[rx.Var], "rx.Expr | None"]] = []


def bound_value(e: rx.Expr) -> rx.Expr:
    """The value `e` is bound to where a builder knows it, else `e` itself."""
    if isinstance(e, rx.Var):
        for lookup in BINDING_LOOKUPS:
            value = lookup(e)
            if value is not None:
                return value
    return e


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, (list, tuple)) else v


def as_expr(value: Any) -> rx.Expr:
    """Python values as relax expressions: tuples of tensors, numbers, shapes."""
    if isinstance(value, rx.Expr):
        return value
    if isinstance(value, (tuple, list)):
        if all(isinstance(v, (int, tx.PrimExpr)) and not isinstance(v, bool) for v in value):
            return shape_expr(value)
        fields = tuple(as_expr(v) for v in value)
        return rx.Tuple(fields, si.TupleStructInfo(tuple(f.struct_info or si.ObjectStructInfo()
                                                         for f in fields)))
    if isinstance(value, (bool, int, float, tx.PrimExpr)):
        e = tx.const(value, "int64" if type(value) is int else None)
        return rx.PrimValue(e, si.PrimStructInfo(e.dtype, e))
    if isinstance(value, str):
        return rx.StringImm(value)
    from ..module import GlobalVar

    if isinstance(value, GlobalVar):  # `(cls.func, R.prim_value(0))` passes a function along
        return rx.GlobalVarRef(value)
    raise TypeError(f"{value!r} ({type(value).__name__}) is not a relax value")


def shape_expr(values: Any) -> rx.ShapeExpr:
    dims = tuple(tx.const(v, "int64") if isinstance(v, int) else v for v in values)
    return rx.ShapeExpr(dims, si.ShapeStructInfo(dims))


def scalar_const(value: float | int, dtype: str) -> rx.Constant:
    """A 0-d tensor constant (Python numbers next to tensors take the tensor's dtype)."""
    import numpy as np

    from ...vm.ndarray import array

    return rx.Constant(array(np.array(value, dtype=dtype)), si.TensorStructInfo((), dtype))


def const(value: Any, dtype: str | None = None) -> rx.Constant:
    """`relax.const(value, dtype)`: a tensor constant from numpy data, an NDArray or a number."""
    import numpy as np

    from ...vm.ndarray import NDArray, array

    data = value.numpy() if isinstance(value, NDArray) else np.asarray(value)
    dtype = getattr(dtype, "dtype", dtype)  # the 2022 API passed a DynTensorType
    if dtype is not None:
        data = data.astype(str(dtype), copy=False)
    elif data.dtype == np.float64 and not isinstance(value, np.ndarray):
        data = data.astype("float32")  # NOTE: Python floats become float32, as in TVM
    elif data.dtype == np.int64 and not isinstance(value, np.ndarray):
        data = data.astype("int32")
    nd = array(np.array(data, order="C"))  # NOTE: ascontiguousarray would make 0-d 1-d
    return rx.Constant(nd, si.TensorStructInfo(tuple(data.shape), data.dtype.name))


def tensor_arg(name: str, call_: rx.Call, i: int, what: str = "") -> si.TensorStructInfo:
    sinfo = call_.args[i].struct_info
    if not isinstance(sinfo, si.TensorStructInfo):
        label = what or f"argument {i}"
        raise OpTypeError(f"R.{name.removeprefix('relax.')}: {label} must be a tensor, got "
                          f"{_describe(sinfo)}")
    return sinfo


def _describe(sinfo: Any) -> str:
    return type(sinfo).__name__.replace("StructInfo", "") if sinfo is not None else "no value"


# -- shape arithmetic -----------------------------------------------------------------------------


def dim(d: Any) -> tx.PrimExpr:
    return tx.const(d, "int64") if isinstance(d, int) else d


def as_int(d: tx.PrimExpr) -> int | None:
    d = simplify(d)
    return d.value if isinstance(d, tx.IntImm) else None


def same_dim(a: tx.PrimExpr, b: tx.PrimExpr) -> bool | None:
    """True/False when provably equal/different, None when it depends on run-time values."""
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ia == ib
    if a is b or simplify(a) == simplify(b):
        return True
    return None


def prod(dims: Any) -> tx.PrimExpr:
    out: tx.PrimExpr = tx.const(1, "int64")
    for d in dims:
        out = out * dim(d)
    return simplify(out)


def broadcast(name: str, a: tuple[tx.PrimExpr, ...], b: tuple[tx.PrimExpr, ...]
              ) -> tuple[tx.PrimExpr, ...] | None:
    """numpy broadcasting of two shapes; None when a symbolic pair cannot be decided."""
    n = max(len(a), len(b))
    a = (tx.const(1, "int64"),) * (n - len(a)) + tuple(a)
    b = (tx.const(1, "int64"),) * (n - len(b)) + tuple(b)
    out: list[tx.PrimExpr] = []
    for i, (x, y) in enumerate(zip(a, b)):
        if as_int(x) == 1:
            out.append(y)
        elif as_int(y) == 1:
            out.append(x)
        else:
            same = same_dim(x, y)
            if same is False:
                raise op_error(name, f"shapes {fmt(a)} and {fmt(b)} do not broadcast: dim {i} "
                                     f"is {fmt_dim(x)} in one and {fmt_dim(y)} in the other")
            if same is None:
                return None
            out.append(x)
    return tuple(out)


def fmt_dim(d: tx.PrimExpr) -> str:
    i = as_int(d)
    if i is not None:
        return str(i)
    return d.name if isinstance(d, tx.Var) else _expr_text(d)


def _expr_text(e: tx.PrimExpr) -> str:
    if isinstance(e, tx.BinOp):
        return f"({_expr_text(e.a)} {e.op.value} {_expr_text(e.b)})"
    if isinstance(e, tx.IntImm):
        return str(e.value)
    return getattr(e, "name", str(e))


def fmt(shape: Any) -> str:
    dims = [fmt_dim(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def norm_axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise op_error(name, f"axis {axis} is out of range for a rank-{ndim} tensor")
    return axis % max(ndim, 1)


def out_tensor(shape: tuple[tx.PrimExpr, ...] | None, dtype: str, ndim: int = -1
               ) -> si.TensorStructInfo:
    if shape is None:
        return si.TensorStructInfo(None, dtype, ndim)
    return si.TensorStructInfo(tuple(simplify(dim(d)) for d in shape), dtype)
