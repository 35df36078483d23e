"""`R.memory.view`'s struct info: the view's shape and dtype, and TVM's bounds checks.

A view sees the same bytes as its source, so it may not reach past them: its byte size plus its
relative byte offset must not exceed the source's byte size. The check is made where it can be
decided at compile time (static sizes, or sizes an analyzer proves larger); otherwise the VM's
runtime view checks it. An absent field keeps the source's: shape and offset are written as
`R.tuple()`, the dtype as `R.null_value()` (TVM 0.27's forms).
"""

from __future__ import annotations

import functools
import operator

from ...tir import expr as tx
from ...tir.dtype import itemsize
from .. import expr as rx
from .. import struct_info as si
from .base import bound_value, op_error, tensor_arg

NAME = "relax.memory.view"


def absent(e: rx.Expr) -> bool:
    """A field the caller did not give (`R.tuple()`, or `R.null_value()` for the dtype)."""
    if isinstance(e, rx.Tuple) and not e.fields:
        return True
    return isinstance(e, rx.Call) and getattr(e.op, "name", "") == "relax.null_value"


def infer_view(c: rx.Call) -> si.StructInfo:
    x = tensor_arg(NAME, c, 0, "the input")
    shape_arg, dtype_arg, offset_arg = c.args[1], c.args[2], c.args[3]
    values, ndim = x.shape, x.ndim
    if not absent(shape_arg):
        sinfo = shape_arg.struct_info
        if not isinstance(sinfo, si.ShapeStructInfo):
            raise op_error(NAME, f"the shape (argument 1) must be a shape (R.shape([...])), got "
                                 f"{type(shape_arg).__name__}")
        values, ndim = sinfo.values, sinfo.ndim
    dtype = x.dtype if absent(dtype_arg) else _view_dtype(dtype_arg)
    offset = None if absent(offset_arg) else _offset(offset_arg)
    if offset is not None and isinstance(offset, tx.IntImm) and offset.value != 0 \
            and absent(shape_arg) and absent(dtype_arg):
        raise op_error(NAME, f"a relative_byte_offset of {offset.value} with the source's own "
                             f"shape and dtype would reach past the end of the source")
    _check_bounds(x, values, dtype, offset)
    return si.TensorStructInfo(values, dtype, ndim)


def _view_dtype(arg: rx.Expr) -> str:
    arg = bound_value(arg)  # `dtype = R.dtype("float32")` bound earlier: still known
    if not isinstance(arg, rx.DataTypeImm):
        return ""  # a dtype held in a variable: not known here
    if arg.value in ("void", ""):
        raise op_error(NAME, "the view's dtype may not be void")
    return arg.value


def _offset(arg: rx.Expr) -> tx.PrimExpr | None:
    sinfo = getattr(arg, "struct_info", None)
    value = getattr(arg, "value", None) if isinstance(arg, rx.PrimValue) else \
        getattr(sinfo, "value", None)
    return value if isinstance(value, tx.PrimExpr) else None


def _size(shape: tuple[tx.PrimExpr, ...] | None, dtype: str, same_dtype: bool
          ) -> tx.PrimExpr | None:
    """Bytes; or elements, when view and source share a dtype (which may be unknown)."""
    if shape is None or not (dtype or same_dtype):
        return None
    count = functools.reduce(operator.mul, shape, tx.const(1, "int64"))
    return count if same_dtype else count * tx.const(itemsize(dtype), "int64")


def _check_bounds(x: si.TensorStructInfo, shape: tuple[tx.PrimExpr, ...] | None, dtype: str,
                  offset: tx.PrimExpr | None) -> None:
    from ...tir.analyzer import Analyzer

    same = x.dtype == dtype
    source, view = _size(x.shape, x.dtype, same), _size(shape, dtype, same)
    if source is None or view is None:
        return
    if offset is not None and same:  # bytes against elements: known only with the dtype
        offset = offset // tx.const(itemsize(dtype), "int64") if dtype else None
    end = view + offset if offset is not None else view
    if Analyzer().can_prove(end > source):
        raise op_error(NAME, f"the view ({_text(shape)} {dtype}"
                             f"{', at byte offset ' + str(offset) if offset is not None else ''}) "
                             f"is larger than its source ({_text(x.shape)} {x.dtype})")


def _text(shape: tuple[tx.PrimExpr, ...] | None) -> str:
    return "(" + ", ".join(str(getattr(d, "value", d)) for d in shape or ()) + ")"
