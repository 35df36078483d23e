"""The binding emitter of the Gradient pass, and adjoints as nested values.

The emitter appends bindings to one dataflow block in A-normal form, as TVM's block builder
normalizes: a call or tuple-get-item inside another expression is bound to a variable of its
own first (tuples stay inline). Subexpressions bound once are remembered by identity, so an
expression the pass shares between two adjoints (`split(g)` feeding both `x`s of
`concat((x, x))`) is bound once, as TVM's normalizer does.

An adjoint of a tuple value is handled leaf by leaf: `leaves(e)` is `e` for a tensor and a
(nested) list of `e[i]` or of the fields of a tuple expression for a tuple.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.op import op_attr

Nested = Any  # an expression, or a list of Nested


class Emitter:
    """Bindings of one dataflow block, emitted in A-normal form."""

    def __init__(self, bindings: list[rx.Binding]) -> None:
        self.bindings = list(bindings)
        self._bound: dict[int, tuple[rx.Expr, rx.Var]] = {}

    def emit(self, expr: rx.Expr, name: str, output: bool = False) -> rx.Var:
        value = self.normalize(expr)
        var = (rx.Var if output else rx.DataflowVar)(name, value.struct_info)
        self.bindings.append(rx.VarBinding(var, value))
        return var

    def normalize(self, expr: rx.Expr) -> rx.Expr:
        """`expr` whose parts are leaves: variables, constants, shapes or inline tuples."""
        if isinstance(expr, rx.Call):
            args = tuple(self._leaf(a) for a in expr.args)
            return expr if _same(args, expr.args) else replace(expr, args=args)
        if isinstance(expr, rx.Tuple):
            fields = tuple(self._leaf(f) for f in expr.fields)
            return expr if _same(fields, expr.fields) else rx.Tuple(fields)
        if isinstance(expr, rx.TupleGetItem):
            tup = self._leaf(expr.tuple_value)
            return rx.TupleGetItem(tup, expr.index, _field_sinfo(tup, expr.index))
        return expr

    def _leaf(self, expr: rx.Expr) -> rx.Expr:
        if isinstance(expr, rx.Tuple):
            return self.normalize(expr)
        if not isinstance(expr, (rx.Call, rx.TupleGetItem)):
            return expr
        known = self._bound.get(id(expr))
        if known is not None:
            return known[1]
        var = self.emit(expr, "lv")
        self._bound[id(expr)] = (expr, var)  # the expr is kept alive so its id stays unique
        return var


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all(x is y for x, y in zip(a, b))


def _field_sinfo(tup: rx.Expr, index: int) -> si.StructInfo | None:
    sinfo = tup.struct_info
    if isinstance(sinfo, si.TupleStructInfo) and 0 <= index < len(sinfo.fields):
        return sinfo.fields[index]
    return None


def get_item(tup: rx.Expr, index: int) -> rx.TupleGetItem:
    return rx.TupleGetItem(tup, index, _field_sinfo(tup, index))


def leaves(expr: rx.Expr) -> Nested:
    """`expr` split by its struct info into tensor leaves (see the module doc)."""
    if isinstance(expr, rx.Tuple):
        return [leaves(f) for f in expr.fields]
    sinfo = expr.struct_info
    if isinstance(sinfo, si.TupleStructInfo):
        return [leaves(get_item(expr, i)) for i in range(len(sinfo.fields))]
    return expr


def join(nested: Nested) -> rx.Expr:
    """The expression of nested leaves. Fields `t[0], t[1], ...` of one `t` give `t` back."""
    if not isinstance(nested, list):
        return nested
    fields = [join(n) for n in nested]
    first = fields[0] if fields else None
    if first is not None and all(
            isinstance(f, rx.TupleGetItem) and f.index == i and f.tuple_value is
            first.tuple_value for i, f in enumerate(fields)):
        return first.tuple_value
    return rx.Tuple(tuple(fields))


def combine(a: Nested, b: Nested, leaf: Callable[[rx.Expr, rx.Expr], rx.Expr]) -> Nested:
    if isinstance(a, list):
        return [combine(x, y, leaf) for x, y in zip(a, b)]
    return leaf(a, b)


def tuple_aware_add(lhs: rx.Expr, rhs: rx.Expr) -> rx.Expr:
    """lhs + rhs, field by field for tuples."""
    return join(combine(leaves(lhs), leaves(rhs), op_attr("relax.add", "make")))


def add_in_tuple(tup: rx.Expr, index: int, increment: rx.Expr) -> rx.Tuple:
    """`tup` with `increment` added to its field `index`."""
    sinfo = tup.struct_info
    assert isinstance(sinfo, si.TupleStructInfo)
    fields = []
    for i in range(len(sinfo.fields)):
        field = tup.fields[i] if isinstance(tup, rx.Tuple) else get_item(tup, i)
        fields.append(tuple_aware_add(field, increment) if i == index else field)
    return rx.Tuple(tuple(fields))


def nested_zeros(sinfo: si.StructInfo) -> rx.Expr:
    """Zeros of a tensor's shape, or a (nested) tuple of them."""
    if isinstance(sinfo, si.TupleStructInfo):
        return rx.Tuple(tuple(nested_zeros(f) for f in sinfo.fields))
    if not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None:
        raise RuntimeError(f"Gradient: an adjoint must be a tensor of known shape (or a tuple "
                           f"of them), got {sinfo}")
    return op_attr("relax.zeros", "make")(sinfo.shape, sinfo.dtype)
