"""The dataflow pattern language (`relax.dpl`): patterns over graph expressions, and matching.

A pattern describes an expression tree: `is_op("relax.nn.relu")(is_op("relax.add")(wildcard(),
is_const()))`. Matching looks through variable bindings (`var2val`), because in a dataflow
block `relu(add(x, c))` is written as two bindings. A pattern object used twice must match the
same expression both times, as in TVM.
"""

from __future__ import annotations

from typing import Any

from ..tir.expr import IntImm
from ..tir.expr import Var as TirVar
from .expr import (
    Call, Constant, DataflowVar, Expr, ExternFunc, Function, GlobalVarRef, Op, SeqExpr,
    ShapeExpr, Tuple, TupleGetItem, Var, VarBinding,
)
from .module import GlobalVar
from .struct_info import TensorStructInfo


class DFPattern:
    """Base of all patterns: call it to make a call pattern, combine with `|` and `&`."""

    def __call__(self, *args: Any, varg_default_wildcard: bool = False,
                 add_constraint: bool = True) -> CallPattern:
        return CallPattern(self, [_as_pattern(a) for a in args], varg_default_wildcard,
                           add_constraint)

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

    def has_ty(self, ty: Any) -> TypePattern:
        return TypePattern(self, ty)

    def match(self, expr: Expr, var2val: dict[Var, Expr] | None = None) -> bool:
        return Matcher(var2val or {}).match(self, expr)

    # graph constraints, kept by the current PatternContext (dpl_graph.py)
    def used_by(self, other: Any, index: int = -1) -> Any:
        from .dpl_graph import used_by

        return used_by(self, other, index)

    def only_used_by(self, other: Any, index: int = -1) -> Any:
        from .dpl_graph import only_used_by

        return only_used_by(self, other, index)

    def __xor__(self, other: Any) -> Any:
        return self.used_by(other)

    def __rshift__(self, other: Any) -> Any:
        return self.only_used_by(other)

    def same_shape_as(self, *others: DFPattern) -> None:
        from .dpl_graph import same_shape_as

        same_shape_as(self, *others)

    def fork_to(self, *consumers: Any) -> None:
        for c in consumers:
            self.used_by(c)

    def dup(self) -> DFPattern:
        """A copy under another identity (a second, distinct node of a graph pattern)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

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


class DataflowVarPattern(VarPattern):
    pass


class GlobalVarPattern(DFPattern):
    def __init__(self, name: str = "") -> None:
        self.name = name


class ExternFuncPattern(DFPattern):
    def __init__(self, func_name: str) -> None:
        self.func_name = func_name


class FunctionPattern(DFPattern):
    def __init__(self, params: list[DFPattern], body: DFPattern) -> None:
        self.params, self.body = list(params), body


class CallPattern(DFPattern):
    """A call; inside a PatternContext each argument is also recorded as used by the call (at
    its position), as TVM does, unless `add_constraint` is False."""

    def __init__(self, op: DFPattern, args: list[DFPattern] | None,
                 varg_default_wildcard: bool = False, add_constraint: bool = True) -> None:
        self.op, self.args, self.varg_default_wildcard = op, args, varg_default_wildcard
        if add_constraint and args:
            from .dpl_graph import PatternContext

            if PatternContext.current() is not None:
                for i, a in enumerate(args):
                    a.used_by(self, i)


class TuplePattern(DFPattern):
    def __init__(self, fields: list[DFPattern]) -> None:
        self.fields = fields

    def __getitem__(self, index: int | None) -> TupleGetItemPattern:
        if index is not None and not -len(self.fields) <= index < len(self.fields):
            raise IndexError(f"tuple pattern index {index} out of range for "
                             f"{len(self.fields)} fields")
        if index is not None and index < 0:
            index += len(self.fields)
        return TupleGetItemPattern(self, index)


class UnorderedTuplePattern(TuplePattern):
    """A tuple whose fields match the patterns in any order."""


class PrimArrPattern(DFPattern):
    """A shape value (`R.shape([...])`) with exactly these dims."""

    def __init__(self, shape: Any) -> None:
        self.shape = tuple(shape)

    def __getitem__(self, index: int) -> Any:
        return self.shape[index]


class TypePattern(DFPattern):
    """The matched expression's struct info fits `ty` (`wildcard().has_ty(R.Tensor(...))`)."""

    def __init__(self, pattern: DFPattern, ty: Any) -> None:
        self.pattern, self.ty = pattern, ty


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


def is_tuple(fields: list[DFPattern], unordered: bool = False) -> TuplePattern:
    cls = UnorderedTuplePattern if unordered else TuplePattern
    return cls([_as_pattern(f) for f in fields])


def is_tuple_get_item(tuple_value: DFPattern, index: int | None = None) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_value, index)


def is_call_tir(func_name: str | None = None, args: Any = None) -> CallTIRPattern:
    return CallTIRPattern(func_name, None if args is None else [_as_pattern(a) for a in args])


def is_dfv(name: str = "") -> DataflowVarPattern:
    return DataflowVarPattern(name)


def is_gv(name: str = "") -> GlobalVarPattern:
    return GlobalVarPattern(name)


def is_shape(shape: Any) -> PrimArrPattern:
    return PrimArrPattern(shape)


def has_dtype(dtype: str, pattern: DFPattern | None = None) -> DataTypePattern:
    return DataTypePattern(pattern or wildcard(), dtype)


def has_attr(attrs: dict[str, Any], pattern: DFPattern | None = None) -> AttrPattern:
    return AttrPattern(pattern or wildcard(), dict(attrs))


def is_call_dps_packed(func_name: str, args: Any = None) -> CallPattern:
    """`R.call_dps_packed(func_name, args, ...)`; `args=None` matches any arguments."""
    arg = wildcard() if args is None else \
        TuplePattern([_as_pattern(a) for a in args]) if isinstance(args, (list, tuple)) else args
    return CallPattern(ExprPattern(Op("relax.call_dps_packed")),
                       [ExternFuncPattern(func_name), arg], add_constraint=False)


def is_call_packed(func_name: str, args: Any = None) -> CallPattern:
    """`R.call_packed(func_name, *args)`; `args=None` matches any arguments."""
    if args is None:
        return CallPattern(ExternFuncPattern(func_name), [], True, add_constraint=False)
    return CallPattern(ExternFuncPattern(func_name), [_as_pattern(a) for a in args],
                       add_constraint=False)


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
        self.dims: dict[Any, Any] = {}  # symbolic dims of `has_ty` patterns, once matched

    def match(self, pattern: DFPattern, expr: Expr) -> bool:
        if pattern in self.memo:
            seen = self.memo[pattern]
            return self.value_of(seen) is self.value_of(expr) or _same_leaf(seen, expr)
        saved, saved_dims = dict(self.memo), dict(self.dims)
        ok = getattr(self, "match_" + type(pattern).__name__)(pattern, expr)
        if ok:
            # NOTE: a structural pattern records the node it matched (the call, not the
            # variable bound to it), so passes can tell which bindings a match covers.
            structural = isinstance(pattern, _STRUCTURAL)
            self.memo[pattern] = self.value_of(expr) if structural else expr
        else:
            self.memo, self.dims = saved, saved_dims
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

    def match_DataflowVarPattern(self, p: DataflowVarPattern, e: Expr) -> bool:  # noqa: N802
        return isinstance(e, DataflowVar) and (not p.name or e.name_hint == p.name)

    def match_GlobalVarPattern(self, p: GlobalVarPattern, e: Expr) -> bool:  # noqa: N802
        gvar = e.gvar if isinstance(e, GlobalVarRef) else e
        return isinstance(gvar, GlobalVar) and (not p.name or gvar.name_hint == p.name)

    def match_ExternFuncPattern(self, p: ExternFuncPattern, e: Expr) -> bool:  # noqa: N802
        f = self.value_of(e)
        return isinstance(f, ExternFunc) and (not p.func_name or
                                              f.global_symbol == p.func_name)

    def match_FunctionPattern(self, p: FunctionPattern, e: Expr) -> bool:  # noqa: N802
        f = self.value_of(e)
        if not isinstance(f, Function) or len(f.params) != len(p.params):
            return False
        return (all(self.match(pp, fp) for pp, fp in zip(p.params, f.params))
                and self.match(p.body, _body_value(f)))

    def match_UnorderedTuplePattern(self, p: UnorderedTuplePattern,  # noqa: N802
                                    e: Expr) -> bool:
        t = self.value_of(e)
        if not isinstance(t, Tuple) or len(t.fields) != len(p.fields):
            return False
        return _assign_unordered(self, list(p.fields), list(t.fields))

    def match_PrimArrPattern(self, p: PrimArrPattern, e: Expr) -> bool:  # noqa: N802
        s = self.value_of(e)
        return isinstance(s, ShapeExpr) and _same_dims(s.values, p.shape)

    def match_TypePattern(self, p: TypePattern, e: Expr) -> bool:  # noqa: N802
        from .type_analysis import is_base_of

        sinfo = _sinfo(e, self)
        if sinfo is None:
            return False
        ok = self.bind_dims(p.ty, sinfo) if _symbolic_tensor(p.ty) else is_base_of(p.ty, sinfo)
        return ok and self.match(p.pattern, e)

    def bind_dims(self, want: TensorStructInfo, have: Any) -> bool:
        """A tensor type whose symbolic dims take the first value they meet and must keep it
        (TVM's `has_ty(R.Tensor([m, n]))` finds elementwise operands)."""
        from ..tir.analyzer import Analyzer

        if not isinstance(have, TensorStructInfo) or have.shape is None or \
                len(have.shape) != len(want.shape) or (want.dtype and want.dtype != have.dtype):
            return False
        analyzer = Analyzer()
        for w, h in zip(want.shape, have.shape):
            if isinstance(w, TirVar) and w not in self.dims:
                self.dims[w] = _dim(h)
                continue
            expected = self.dims.get(w, w) if isinstance(w, TirVar) else w
            if not analyzer.can_prove_equal(_dim(expected), _dim(h)):
                return False
        return True

    def match_CallPattern(self, p: CallPattern, e: Expr) -> bool:  # noqa: N802
        call = self.value_of(e)
        if not isinstance(call, Call) or not self.match(p.op, call.op):
            return False
        if p.args is None:
            return True
        if len(p.args) != len(call.args):
            if not (p.varg_default_wildcard and len(p.args) < len(call.args)):
                return False
        saved = dict(self.memo)
        if all(self.match(a, x) for a, x in zip(p.args, call.args)):
            return True
        self.memo = saved
        # TVM tries a commutative operator's two operands the other way round too
        return (isinstance(call.op, Op) and call.op.name in _COMMUTATIVE and len(p.args) == 2
                and len(call.args) == 2 and self.match(p.args[0], call.args[1])
                and self.match(p.args[1], call.args[0]))

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
        return _same_dims(sinfo.shape, p.shape) and self.match(p.pattern, e)

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


_COMMUTATIVE = ("relax.add", "relax.multiply")
_STRUCTURAL = (CallPattern, TuplePattern, TupleGetItemPattern, CallTIRPattern)


def _symbolic_tensor(ty: Any) -> bool:
    return isinstance(ty, TensorStructInfo) and ty.shape is not None and \
        isinstance(ty.shape, tuple) and any(isinstance(d, TirVar) for d in ty.shape)


def _sinfo(e: Expr, m: Matcher) -> Any:
    return e.struct_info if e.struct_info is not None else m.value_of(e).struct_info


def _same_dims(have: tuple[Any, ...], want: tuple[Any, ...]) -> bool:
    """Dim by dim, equal when the analyzer proves it (`n + m` is `m + n`)."""
    from ..tir.analyzer import Analyzer

    analyzer = Analyzer()
    return len(have) == len(want) and all(
        analyzer.can_prove_equal(_dim(h), _dim(w)) for h, w in zip(have, want))


def _dim(d: Any) -> Any:
    return IntImm("int64", d) if isinstance(d, int) else d


def _body_value(f: Function) -> Expr:
    body = f.body
    return body.body if isinstance(body, SeqExpr) and not body.blocks else body


def _assign_unordered(m: Matcher, pats: list[DFPattern], fields: list[Expr]) -> bool:
    """Backtracking: each pattern takes a distinct field it matches."""
    if not pats:
        return True
    for i, f in enumerate(fields):
        saved = dict(m.memo)
        if m.match(pats[0], f) and _assign_unordered(m, pats[1:], fields[:i] + fields[i + 1:]):
            return True
        m.memo = saved
    return False


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
    if isinstance(want, IntImm):  # `has_attr({"indices_or_sections": T.int64(2)})`
        want = want.value
    return bool(have == want)


def bindings_of(func: Function) -> dict[Var, Expr]:
    """var -> bound value for every binding of a function (what matching looks through)."""
    out: dict[Var, Expr] = {}
    for block in func.body.blocks:
        for b in block.bindings:
            if isinstance(b, VarBinding):
                out[b.var] = b.value
    return out
from .dpl_rewrite import rewrite_call  # noqa: E402,F401 (defined after the patterns it uses)
