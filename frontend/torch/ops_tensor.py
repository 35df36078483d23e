"""Converters of tensor ATen ops: elementwise math, matmul, shape changes, reductions.

Shapes that torch.export already inferred (`node.meta["val"]`) are taken from there rather than
recomputed from the arguments: a `view(x, [-1, 32])` or an `expand` under symbolic sizes then
needs no size arithmetic here.
"""

from __future__ import annotations

import math
from itertools import accumulate
from typing import Any

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.op import op_attr
from ...ir.ops.base import scalar_const
from ...ir.structural import structural_equal
from ...tir import expr as tx
from .registry import converts
from .symbolic import dtype_name


def make(name: str, *args: Any, **attrs: Any) -> rx.Call:
    """A call of the registered relax op `relax.<name>` (struct info inferred)."""
    return op_attr(f"relax.{name}", "make")(*args, **attrs)


def out_dtype(node: Any) -> str:
    return dtype_name(node.meta["val"].dtype)


def ndim(x: rx.Expr) -> int:
    sinfo = x.struct_info
    assert isinstance(sinfo, si.TensorStructInfo)
    return sinfo.ndim


def cast(x: Any, dtype: str) -> Any:
    """`x` as `dtype` (Python numbers stay numbers: the ops give them the tensor's dtype)."""
    if isinstance(x, rx.Expr) and getattr(x.struct_info, "dtype", dtype) != dtype:
        return make("astype", x, dtype)
    return x


def first_arg(node: Any, imp: Any) -> Any:
    return imp.retrieve_args(node)[0]


# -- elementwise ----------------------------------------------------------------------------------

_UNARY = {"relu": "nn.relu", "silu": "nn.silu", "tanh": "tanh", "sigmoid": "sigmoid",
          "exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "neg": "negative",
          "abs": "abs", "erf": "erf", "sin": "sin", "cos": "cos", "floor": "floor",
          "ceil": "ceil", "round": "round", "logical_not": "logical_not",
          "acos": "acos", "acosh": "acosh", "asin": "asin", "asinh": "asinh", "atan": "atan",
          "atanh": "atanh", "cosh": "cosh", "sinh": "sinh", "tan": "tan", "trunc": "trunc",
          "sign": "sign", "bitwise_not": "bitwise_not", "square": "square",
          "selu": "nn.selu"}
_PREDICATES = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}
for _aten, _op in _PREDICATES.items():  # bool results: no cast of the input
    converts(f"{_aten}.default")(lambda node, imp, op=_op: make(op, first_arg(node, imp)))
for _aten, _op in _UNARY.items():  # cast: sqrt of an int tensor is a float tensor in torch
    converts(f"{_aten}.default")(
        lambda node, imp, op=_op: make(op, cast(first_arg(node, imp), out_dtype(node))))

_BINARY = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
           "maximum": "maximum", "minimum": "minimum",
           "floor_divide": "floor_divide", "remainder": "floor_mod"}
_OVERLOADS = ("Tensor", "Scalar", "default", "Tensor_Scalar", "Tensor_Tensor")


def _binary(op: str, swap: bool = False) -> Any:
    def convert(node: Any, imp: Any) -> rx.Call:
        # NOTE: torch promotes operands (int tensor / 2 -> float); the result dtype it
        # recorded says to what, and both operands are cast to it.
        dtype = out_dtype(node)
        a, b = (cast(v, dtype) for v in imp.retrieve_args(node)[:2])
        if swap:  # rsub(x, y) is y - x
            a, b = b, a
        alpha = node.kwargs.get("alpha", 1)
        if alpha != 1:  # add/sub(x, y, alpha=k) is x +- k * y
            b = imp.emit(make("multiply", b, alpha)) if isinstance(b, rx.Expr) else b * alpha
        return make(op, a, b)
    return convert


for _aten, _op in _BINARY.items():
    converts(*(f"{_aten}.{o}" for o in _OVERLOADS))(_binary(_op))
converts("rsub.Scalar", "rsub.Tensor")(_binary("subtract", swap=True))

_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
            "gt": "greater", "ge": "greater_equal"}


def _compare(op: str) -> Any:
    def convert(node: Any, imp: Any) -> rx.Call:
        a, b = imp.retrieve_args(node)[:2]  # the result is bool: compare in a's dtype
        return make(op, a, cast(b, a.struct_info.dtype))
    return convert


for _aten, _op in _COMPARE.items():
    converts(f"{_aten}.Tensor", f"{_aten}.Scalar")(_compare(_op))


@converts("where.self")
def _where(node: Any, imp: Any) -> rx.Call:
    cond, a, b = imp.retrieve_args(node)
    dtype = out_dtype(node)
    return make("where", cond, cast(a, dtype), cast(b, dtype))


def prim_bound(v: Any, default: float) -> rx.PrimValue:
    """A clip bound as TVM writes it: ints as int64, floats (and a missing side) as float64."""
    v = default if v is None else v
    e = tx.const(v, "int64") if isinstance(v, int) else tx.const(float(v), "float64")
    return rx.PrimValue(e, si.PrimStructInfo(e.dtype, e))


@converts("clamp.default", "clamp.Tensor", "hardtanh.default", "clamp_min.default",
          "clamp_max.default")
def _clamp(node: Any, imp: Any) -> Any:
    name = node.target.__name__
    args = list(imp.retrieve_args(node)) + [None, None]
    x, lo, hi = args[:3]
    if name.startswith("hardtanh"):
        lo, hi = (-1.0 if lo is None else lo), (1.0 if hi is None else hi)
    elif name.startswith("clamp_max"):
        lo, hi = None, lo
    # tensor bounds: elementwise max/min against the bound broadcast to the result's shape
    if isinstance(lo, rx.Expr):
        x = imp.emit(make("maximum", x, imp.emit(make("broadcast_to", lo, imp.shape_of(node)))))
        lo = None
    if isinstance(hi, rx.Expr):
        x = imp.emit(make("minimum", x, imp.emit(make("broadcast_to", hi, imp.shape_of(node)))))
        hi = None
    return make("clip", x, prim_bound(lo, -math.inf), prim_bound(hi, math.inf))


@converts("_to_copy.default", "to.dtype")
def _to_copy(node: Any, imp: Any) -> Any:
    return cast(first_arg(node, imp), out_dtype(node))


def _identity(node: Any, imp: Any) -> Any:
    return first_arg(node, imp)


# NOTE: dropout is the identity in eval mode, the only mode an exported inference graph has.
converts("clone.default", "alias.default", "detach.default", "lift_fresh_copy.default",
         "dropout.default", "contiguous.default")(_identity)


def _nothing(node: Any, imp: Any) -> None:
    return None


# Run-time checks torch.export inserts; shapes were checked when the program was built.
converts("_assert_tensor_metadata.default", "_assert_scalar.default",
         "sym_constrain_range_for_size.default", "_assert_async.msg")(_nothing)


# -- matmul ---------------------------------------------------------------------------------------


@converts("mm.default", "bmm.default", "matmul.default")
def _matmul(node: Any, imp: Any) -> rx.Call:
    a, b = imp.retrieve_args(node)[:2]
    return make("matmul", a, b, out_dtype=out_dtype(node))


@converts("addmm.default")
def _addmm(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)  # beta * self + alpha * (mat1 @ mat2)
    mm = imp.emit(make("matmul", a["mat1"], a["mat2"], out_dtype=out_dtype(node)))
    if a["alpha"] != 1:
        mm = imp.emit(make("multiply", mm, a["alpha"]))
    bias = a["self"] if a["beta"] == 1 else imp.emit(make("multiply", a["self"], a["beta"]))
    return make("add", bias, mm)


@converts("linear.default")
def _linear(node: Any, imp: Any) -> rx.Call:
    x, w, *rest = imp.retrieve_args(node)
    y = make("matmul", x, imp.emit(make("permute_dims", w, [1, 0])), out_dtype=out_dtype(node))
    return make("add", imp.emit(y), rest[0]) if rest and rest[0] is not None else y


@converts("t.default")
def _t(node: Any, imp: Any) -> Any:
    x = first_arg(node, imp)
    return make("permute_dims", x, [1, 0]) if ndim(x) == 2 else x


@converts("permute.default")
def _permute(node: Any, imp: Any) -> rx.Call:
    x, dims = imp.retrieve_args(node)
    return make("permute_dims", x, list(dims))


@converts("transpose.int")
def _transpose(node: Any, imp: Any) -> rx.Call:
    x, d0, d1 = imp.retrieve_args(node)
    axes = list(range(ndim(x)))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return make("permute_dims", x, axes)


# -- shapes ---------------------------------------------------------------------------------------


@converts("view.default", "reshape.default", "_unsafe_view.default", "flatten.using_ints",
          "unflatten.int")
def _reshape(node: Any, imp: Any) -> rx.Call:
    # NOTE: squeeze too: torch's squeeze(dim) leaves a dim that is not 1 alone, R.squeeze
    # would reject it; the recorded result shape says what torch did.
    x, shape = first_arg(node, imp), imp.shape_of(node)
    # to its own shape, written out as such (not with a -1): nothing, as TVM 0.27 has it
    dims = node.args[1] if len(node.args) > 1 else None
    if isinstance(dims, (list, tuple)) and _static(x.struct_info.shape) == list(dims):
        return x
    return make("reshape", x, shape)


def _static(shape: Any) -> list[int] | None:
    """The dims as ints, or None where one is symbolic (or the shape unknown)."""
    dims = [getattr(d, "value", None) for d in shape] if shape is not None else [None]
    return None if None in dims else dims


@converts("squeeze.dim", "squeeze.dims", "squeeze.default")
def _squeeze(node: Any, imp: Any) -> rx.Call:
    """R.squeeze with the axes as given (every axis for squeeze()): as in torch, an axis whose
    extent is not 1 stays."""
    args = imp.retrieve_args(node)
    x = args[0]
    dims = args[1] if len(args) > 1 else list(range(ndim(x)))
    return make("squeeze", x, [dims] if isinstance(dims, int) else list(dims))


@converts("unsqueeze.default")
def _unsqueeze(node: Any, imp: Any) -> rx.Call:
    x, d = imp.retrieve_args(node)
    return make("expand_dims", x, d)  # a negative axis as given, as TVM writes it


@converts("expand.default")
def _expand(node: Any, imp: Any) -> rx.Call:
    return make("broadcast_to", first_arg(node, imp), imp.shape_of(node))


@converts("cat.default", "concat.default")
def _cat(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("concat", list(a["tensors"]), axis=a["dim"])


@converts("split_with_sizes.default", "split.Tensor", "split.sizes", "chunk.default",
          "tensor_split.sections", "unsafe_split.Tensor")
def _split(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    x, axis = a["self"], a["dim"]
    # the pieces' sizes as torch.export recorded them: split points are their running sums
    sizes = [imp.symbols.dim(piece.shape[axis]) for piece in node.meta["val"]]
    return make("split", x, list(accumulate(sizes[:-1])), axis=axis)


@converts("getitem")
def _getitem(node: Any, imp: Any) -> Any:
    value, index = imp.retrieve_args(node)
    if isinstance(value, (tuple, list)):  # results of ops whose extras tvmlite never computes
        if value[index] is None:
            raise NotImplementedError(f"from_exported_program: result {index} of "
                                      f"{node.args[0].target} is not supported (only result 0)")
        return value[index]
    sinfo = value.struct_info
    return imp.emit(rx.TupleGetItem(value, index, sinfo.fields[index]))


@converts("slice.Tensor")
def _slice(node: Any, imp: Any) -> Any:
    """TVM 0.27's form: an open end stays torch's INT64_MAX (strided_slice clamps it), and a
    slice of the whole axis is no op at all."""
    a = imp.named_args(node)
    x, axis, step = a["self"], a["dim"], a["step"]
    start = 0 if a["start"] is None else a["start"]
    end = _INT64_MAX if a["end"] is None else a["end"]
    if start == 0 and step == 1 and isinstance(start, int):
        size = x.struct_info.shape[axis] if x.struct_info.shape is not None else None
        if (isinstance(end, int) and end >= _INT64_MAX) or (
                isinstance(end, tx.PrimExpr) and size is not None and structural_equal(end, size)):
            return x
    return make("strided_slice", x, [axis], [start], [end], [step])


_INT64_MAX = 2 ** 63 - 1


# -- reductions -----------------------------------------------------------------------------------

_REDUCE = {"sum": "sum", "mean": "mean", "amax": "max", "amin": "min", "prod": "prod"}


def _reduce_args(node: Any, imp: Any) -> tuple[Any, Any, bool]:
    """(input, axis or None for all, keepdims) of sum/mean/amax/any/... in any overload."""
    a = imp.named_args(node)
    dims = a.get("dim")
    axis = None if dims is None or dims == [] else ([dims] if isinstance(dims, int) else dims)
    return a["self"], axis, bool(a.get("keepdim", False))


def _reduce(op: str) -> Any:
    def convert(node: Any, imp: Any) -> rx.Call:
        x, axis, keep = _reduce_args(node, imp)
        # cast: sum(x, dtype=...) accumulates in that dtype, mean of ints is refused by torch
        return make(op, cast(x, out_dtype(node)), axis=axis, keepdims=keep)
    return convert


for _aten, _op in _REDUCE.items():
    converts(*(f"{_aten}.{o}" for o in ("default", "dim", "dim_IntList", "dim_int")))(
        _reduce(_op))


@converts("any.default", "any.dim", "any.dims")
def _any(node: Any, imp: Any) -> rx.Call:
    # no boolean reductions in tvmlite: any(x) is max(int(x)) > 0
    x, axis, keep = _reduce_args(node, imp)
    as_int = imp.emit(make("astype", x, "int32"))
    return make("greater", imp.emit(make("max", as_int, axis=axis, keepdims=keep)), 0)


@converts("argmax.default", "argmin.default")
def _argmax(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make(node.target.__name__.split(".")[0], a["self"], axis=a["dim"],
                keepdims=bool(a["keepdim"]))


@converts("_softmax.default", "softmax.int", "_log_softmax.default", "log_softmax.int")
def _softmax(node: Any, imp: Any) -> rx.Call:
    x, dim = imp.retrieve_args(node)[:2]
    op = "nn.log_softmax" if "log" in node.target.__name__ else "nn.softmax"
    return make(op, cast(x, out_dtype(node)), axis=dim)


# -- creation -------------------------------------------------------------------------------------


@converts("full.default", "zeros.default", "zeros_like.default",
          "ones.default", "ones_like.default")
def _full(node: Any, imp: Any) -> rx.Call:
    name, dtype = node.target.__name__.split(".")[0], out_dtype(node)
    if name.startswith("full"):
        fill = imp.retrieve_args(node)[1]
    else:
        fill = 0 if name.startswith("zeros") else 1
    return make("full", imp.shape_of(node), scalar_const(fill, dtype), dtype)


@converts("expm1.default")
def _expm1(node: Any, imp: Any) -> rx.Call:
    x = cast(first_arg(node, imp), out_dtype(node))
    return make("subtract", imp.emit(make("exp", x)), scalar_const(1.0, out_dtype(node)))


@converts("div.Tensor_mode", "div.Scalar_mode")
def _div_mode(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    dtype = out_dtype(node)
    x, y = cast(a["self"], dtype), cast(a["other"], dtype)
    mode = a.get("rounding_mode")
    if mode == "floor":
        return make("floor_divide", x, y)
    quotient = make("divide", x, y)
    return make("trunc", imp.emit(quotient)) if mode == "trunc" else quotient
