"""Helpers TVM keeps in `relax/utils.py` and `relax/pipeline.py`: `convert_to_expr`,
`get_shape_of` and `register_pipeline`."""

from __future__ import annotations

from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si


def convert_to_expr(value: Any) -> rx.Expr:
    """A Python value as a relax expression: relax expressions as they are, numbers and TIR
    scalars as prim values, strings as string literals, lists and tuples as tuples."""
    from ..script.parser.relax_parser import to_expr

    try:
        return to_expr(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} with type {type(value)} to `relax.Expr`"
                        ) from None


def get_shape_of(expr: rx.Expr) -> rx.Expr:
    """The shape of tensor `expr` as a shape expression (its dims may be symbolic), or, where
    the struct info does not know the dims, a `R.shape_of(expr)` call that reads them at run
    time (as TVM's GetShapeOf)."""
    sinfo = expr.struct_info
    if not isinstance(sinfo, si.TensorStructInfo):
        raise TypeError(f"get_shape_of: expected a tensor, got struct info {sinfo}")
    if sinfo.shape is None:
        from ..ir.ops.runtime_ops import shape_of

        return shape_of(expr)
    return rx.ShapeExpr(sinfo.shape, si.ShapeStructInfo(sinfo.shape))


def register_pipeline(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@relax.register_pipeline("mine")` on a function returning a Pass: afterwards
    `relax.get_pipeline("mine")` calls it."""
    from .pipeline import PIPELINES

    def register(make: Callable[..., Any]) -> Callable[..., Any]:
        if name in PIPELINES:
            raise ValueError(f"a pipeline named {name!r} is already registered")
        PIPELINES[name] = make
        return make

    return register
