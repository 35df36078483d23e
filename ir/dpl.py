"""The dataflow pattern language (`relax.dpl`): patterns over graph expressions, and matching.

A pattern describes an expression tree: `is_op("relax.nn.relu")(is_op("relax.add")(wildcard(),
is_const()))`. Matching looks through variable bindings (`var2val`), because in a dataflow
block `relu(add(x, c))` is written as two bindings. A pattern object used twice must match the
same expression both times, as in TVM.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tir.expr import IntImm
from .expr import (
    Call, Constant, DataflowVar, Expr, ExternFunc, Function, GlobalVarRef, Op, Tuple,
    TupleGetItem, Var, VarBinding,
)
from .struct_info import TensorStructInfo


class DFPattern:
    """Base of all patterns: call it to make a call pattern, combine with `|` and `&`."""

    def __call__(self, *args: Any, varg_default_wildcard: bool = False) -> CallPattern:
        return CallPattern(self, [_as_pattern(a) for a in args], varg_default_wildcard)

    def __or__(self, other: DFPattern) -> OrPattern:
        return OrPattern(self, other)

    def __and__(self, other: DFPattern) -> AndPattern:
        return AndPattern(self, other)

    def __invert__(self) -> NotPattern:
        return NotPattern(self)

    def has_dtype(self, dtype: str) -> DataTypePattern:
        return DataTypePattern(self, dtype)

    def has_shape(self, shape: Any) -> ShapePattern:
        return ShapePattern(self, tuple(shape))

    def has_attr(self, attrs: dict[str, Any]) -> AttrPattern:
        return AttrPattern(self, dict(attrs))

    def match(self, expr: Expr, var2val: dict[Var, Expr] | None = None) -> bool:
        return Matcher(var2val or {}).match(self, expr)

    def extract_matched_expr(self, expr: Expr, var2val: dict[Var, Expr] | None = None
                             ) -> dict[DFPattern, Expr] | None:
        matcher = Matcher(var2val or {})
        return dict(matcher.memo) if matcher.match(self, expr) else None


class WildcardPattern(DFPattern):
    pass


class ExprPattern(DFPattern):
    def __init__(self, expr: Expr) -> None:
        self.expr = expr


class ConstantPattern(DFPattern):
    pass


class VarPattern(DFPattern):
    def __init__(self, name: str = "") -> None:
        self.name = name


class CallPattern(DFPattern):
    def __init__(self, op: DFPattern, args: list[DFPattern] | None,
                 varg_default_wildcard: bool = False) -> None:
        self.op, self.args, self.varg_default_wildcard = op, args, varg_default_wildcard


class TuplePattern(DFPattern):
    def __init__(self, fields: list[DFPattern]) -> None:
        self.fields = fields


class TupleGetItemPattern(DFPattern):
    def __init__(self, tuple_value: DFPattern, index: int | None = None) -> None:
        self.tuple_value, self.index = tuple_value, index


class OrPattern(DFPattern):
    def __init__(self, left: DFPattern, right: DFPattern) -> None:
        self.left, self.right = left, right


class AndPattern(DFPattern):
    def __init__(self, left: DFPattern, right: DFPattern) -> None:
        self.left, self.right = left, right


class NotPattern(DFPattern):
    def __init__(self, reject: DFPattern) -> None:
        self.reject = reject


class DataTypePattern(DFPattern):
    def __init__(self, pattern: DFPattern, dtype: str) -> None:
        self.pattern, self.dtype = pattern, dtype


class ShapePattern(DFPattern):
    def __init__(self, pattern: DFPattern, shape: tuple[Any, ...]) -> None:
        self.pattern, self.shape = pattern, shape


class AttrPattern(DFPattern):
    def __init__(self, pattern: DFPattern, attrs: dict[str, Any]) -> None:
        self.pattern, self.attrs = pattern, attrs


class CallTIRPattern(DFPattern):
    """`R.call_tir(func_name, args)`; `func_name=None` matches any callee."""

    def __init__(self, func_name: str | None, args: list[DFPattern] | None) -> None:
        self.func_name, self.args = func_name, args


# -- constructors, as TVM names them -------------------------------------------------------


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def is_op(name: str) -> ExprPattern:
    return ExprPattern(Op(name))


def is_const() -> ConstantPattern:
    return ConstantPattern()


def is_var(name: str = "") -> VarPattern:
    return VarPattern(name)


def is_tuple(fields: list[DFPattern]) -> TuplePattern:
    return TuplePattern([_as_pattern(f) for f in fields])


def is_tuple_get_item(tuple_value: DFPattern, index: int | None = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_value, index)


def is_call_tir(func_name: str | None = None, args: Any = None) -> CallTIRPattern:
    return CallTIRPattern(func_name, None if args is None else [_as_pattern(a) for a in args])


def is_expr(expr: Expr) -> ExprPattern:
    return ExprPattern(expr)


def _as_pattern(x: Any) -> DFPattern:
    if isinstance(x, DFPattern):
        return x
    if isinstance(x, Expr):
        return ExprPattern(x)
    raise TypeError(f"expected a pattern or an expression, got {type(x).__name__}")


# -- matching ----------------------------------------------------------------------------------


class Matcher:
    """Matches a pattern against an expression, recording what each sub-pattern matched."""

    def __init__(self, var2val: dict[Var, Expr]) -> None:
        self.var2val = var2val
        self.memo: dict[DFPattern, Expr] = {}

    def match(self, pattern: DFPattern, expr: Expr) -> bool:
        if pattern in self.memo:
            seen = self.memo[pattern]
            return self.value_of(seen) is self.value_of(expr) or _same_leaf(seen, expr)
        saved = dict(self.memo)
        ok = getattr(self, "match_" + type(pattern).__name__)(pattern, expr)
        if ok:
            # NOTE: a structural pattern records the node it matched (the call, not the
            # variable bound to it), so passes can tell which bindings a match covers.
            structural = isinstance(pattern, _STRUCTURAL)
            self.memo[pattern] = self.value_of(expr) if structural else expr
        else:
            self.memo = saved
        return ok

    def value_of(self, expr: Expr) -> Expr:
        """Look through bindings: a variable bound in the block stands for its value."""
        while isinstance(expr, (Var, DataflowVar)) and expr in self.var2val:
            expr = self.var2val[expr]
        return expr

    def match_WildcardPattern(self, p: WildcardPattern, e: Expr) -> bool:  # noqa: N802
        return True

    def match_ExprPattern(self, p: ExprPattern, e: Expr) -> bool:  # noqa: N802
        return _same_leaf(p.expr, e) or _same_leaf(p.expr, self.value_of(e))

    def match_ConstantPattern(self, p: ConstantPattern, e: Expr) -> bool:  # noqa: N802
        return isinstance(self.value_of(e), Constant)

    def match_VarPattern(self, p: VarPattern, e: Expr) -> bool:  # noqa: N802
        return isinstance(e, Var) and (not p.name or e.name_hint == p.name)

    def match_CallPattern(self, p: CallPattern, e: Expr) -> bool:  # noqa: N802
        call = self.value_of(e)
        if not isinstance(call, Call) or not self.match(p.op, call.op):
            return False
        if p.args is None:
            return True
        if len(p.args) != len(call.args):
            if not (p.varg_default_wildcard and len(p.args) < len(call.args)):
                return False
        return all(self.match(a, x) for a, x in zip(p.args, call.args))

    def match_TuplePattern(self, p: TuplePattern, e: Expr) -> bool:  # noqa: N802
        t = self.value_of(e)
        return (isinstance(t, Tuple) and len(t.fields) == len(p.fields)
                and all(self.match(f, x) for f, x in zip(p.fields, t.fields)))

    def match_TupleGetItemPattern(self, p: TupleGetItemPattern, e: Expr) -> bool:  # noqa: N802
        t = self.value_of(e)
        return (isinstance(t, TupleGetItem) and (p.index is None or p.index == t.index)
                and self.match(p.tuple_value, t.tuple_value))

    def match_OrPattern(self, p: OrPattern, e: Expr) -> bool:  # noqa: N802
        return self.match(p.left, e) or self.match(p.right, e)

    def match_AndPattern(self, p: AndPattern, e: Expr) -> bool:  # noqa: N802
        return self.match(p.left, e) and self.match(p.right, e)

    def match_NotPattern(self, p: NotPattern, e: Expr) -> bool:  # noqa: N802
        return not Matcher(self.var2val).match(p.reject, e)

    def match_DataTypePattern(self, p: DataTypePattern, e: Expr) -> bool:  # noqa: N802
        sinfo = _sinfo(e, self)
        return (isinstance(sinfo, TensorStructInfo) and sinfo.dtype == p.dtype
                and self.match(p.pattern, e))

    def match_ShapePattern(self, p: ShapePattern, e: Expr) -> bool:  # noqa: N802
        sinfo = _sinfo(e, self)
        if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            return False
        if len(sinfo.shape) != len(p.shape):
            return False
        for have, want in zip(sinfo.shape, p.shape):
            if isinstance(want, int) and not (isinstance(have, IntImm) and have.value == want):
                return False
        return self.match(p.pattern, e)

    def match_AttrPattern(self, p: AttrPattern, e: Expr) -> bool:  # noqa: N802
        call = self.value_of(e)
        if isinstance(call, Call):
            attrs = dict(call.attrs)
        elif isinstance(call, Function):
            attrs = call.attr_dict
        else:
            return False
        if not all(k in attrs and _attr_equal(attrs[k], v) for k, v in p.attrs.items()):
            return False
        return self.match(p.pattern, e)

    def match_CallTIRPattern(self, p: CallTIRPattern, e: Expr) -> bool:  # noqa: N802
        call = self.value_of(e)
        if not isinstance(call, Call) or call.op != Op("relax.call_tir"):
            return False
        callee = call.args[0]
        if p.func_name is not None and not (isinstance(callee, GlobalVarRef)
                                            and callee.gvar.name_hint == p.func_name):
            return False
        if p.args is None:
            return True
        fields = call.args[1].fields if isinstance(call.args[1], Tuple) else (call.args[1],)
        return len(fields) == len(p.args) and all(self.match(a, f)
                                                  for a, f in zip(p.args, fields))


_STRUCTURAL = (CallPattern, TuplePattern, TupleGetItemPattern, CallTIRPattern)


def _sinfo(e: Expr, m: Matcher) -> Any:
    return e.struct_info if e.struct_info is not None else m.value_of(e).struct_info


def _same_leaf(a: Expr, b: Expr) -> bool:
    if isinstance(a, (Op, ExternFunc)):
        return a == b
    if isinstance(a, GlobalVarRef) and isinstance(b, GlobalVarRef):
        return a.gvar is b.gvar
    return a is b


def _attr_equal(have: Any, want: Any) -> bool:
    if isinstance(have, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(have) == len(want) and all(_attr_equal(h, w) for h, w in zip(have, want))
    if isinstance(have, IntImm):
        have = have.value
    return bool(have == want)


def bindings_of(func: Function) -> dict[Var, Expr]:
    """var -> bound value for every binding of a function (what matching looks through)."""
    out: dict[Var, Expr] = {}
    for block in func.body.blocks:
        for b in block.bindings:
            if isinstance(b, VarBinding):
                out[b.var] = b.value
    return out


def rewrite_call(pattern: DFPattern, rewriter: Callable[[Expr, dict[DFPattern, Expr]], Expr],
                 func: Function) -> Function:
    """Replace every bound value matching `pattern` by `rewriter(value, matches)`."""
    from dataclasses import replace

    var2val = bindings_of(func)
    blocks = []
    for block in func.body.blocks:
        bindings = []
        for b in block.bindings:
            if isinstance(b, VarBinding):
                matches = pattern.extract_matched_expr(b.value, var2val)
                if matches is not None:
                    b = replace(b, value=rewriter(b.value, matches))
            bindings.append(b)
        blocks.append(replace(block, bindings=tuple(bindings)))
    return replace(func, body=replace(func.body, blocks=tuple(blocks)))
