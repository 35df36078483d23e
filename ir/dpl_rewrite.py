"""`rewrite_call`: replace the values a pattern matches, until nothing more matches.

Each binding's value is matched (looking through the bindings before it); the rewriter's result
takes the value's place, its nested calls bound to fresh variables just before it, and those
new bindings are matched in turn, so a rewrite that produces more matches is followed to the
end (TVM iterates to convergence too). Afterwards bindings that only rename a value (`y = x`)
go as CanonicalizeBindings removes them, and then the unused ones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from .dpl import DFPattern, OrPattern
from .expr import (
    Call, DataflowBlock, DataflowVar, Expr, Function, MatchCast, Op, SeqExpr, Tuple,
    TupleGetItem, Var, VarBinding,
)
from .functor import substitute_vars
from .op import with_inferred_struct_info
from .structural import structural_equal

_MAX_REWRITES = 10000
_MAX_ROUNDS = 100


def rewrite_call(pattern: DFPattern, rewriter: Callable[[Expr, dict[DFPattern, Expr]], Expr],
                 func: Function) -> Function:
    """Replace every bound value matching `pattern` by `rewriter(value, matches)`."""
    from ..transforms.canonicalize import canonicalize
    from ..transforms.simple_passes import remove_unused

    out = func
    for _ in range(_MAX_ROUNDS):
        # NOTE: as TVM, each round's rewrites are canonicalized and dead code removed before
        # matching again: `t = (a, b); x = t[0]` is `a` for the next round's patterns
        var2val: dict[Var, Expr] = {}
        renamed: dict[Var, Expr] = {}
        blocks = tuple(_rewrite_block(pattern, rewriter, b, var2val, renamed)
                       for b in out.body.blocks)
        if all(a is b for a, b in zip(blocks, out.body.blocks)):
            return out
        body = substitute_vars(out.body.body, renamed) if renamed else out.body.body
        out = replace(out, body=replace(out.body, blocks=blocks, body=body))
        out = remove_unused(canonicalize(out))
    return out


def _rewrite_block(pattern: DFPattern, rewriter: Callable, block: Any,
                   var2val: dict[Var, Expr], renamed: dict[Var, Expr]) -> Any:
    bindings = list(block.bindings)
    changed, i, budget = False, 0, _MAX_REWRITES
    while i < len(bindings):
        b = bindings[i]
        if renamed:
            b = _reemit(b, renamed)
            if b is not bindings[i]:
                bindings[i] = b
                changed = True
        new = _rewritten(pattern, rewriter, b, var2val)
        if new is None:
            var2val[b.var] = b.value
            i += 1
            continue
        budget -= 1
        if budget == 0:
            raise RuntimeError("rewrite_call: the rewriter keeps producing matches")
        prefix: list[Any] = []
        top = Emitter(prefix, isinstance(block, DataflowBlock)).flatten(new)
        var = b.var
        if isinstance(b, VarBinding) and top.struct_info is not None and \
                not structural_equal(top.struct_info, var.struct_info):
            # the variable takes the new value's struct info (TVM re-emits the binding)
            var = type(var)(var.name_hint, top.struct_info)
            renamed[b.var] = var
        bindings[i:i + 1] = [*prefix, replace(b, var=var, value=top)]
        changed = True  # NOTE: i stays, so the new bindings are matched too
    return replace(block, bindings=tuple(bindings)) if changed else block


def _reemit(b: Any, renamed: dict[Var, Expr]) -> Any:
    """`b` reading the renamed variables; a call's struct info is inferred again, and its
    variable renamed in turn when that changed it (as TVM's normalizer re-emits)."""
    value = substitute_vars(b.value, renamed)
    if value is b.value:
        return b
    if isinstance(value, Call) and isinstance(value.op, Op):
        value = with_inferred_struct_info(replace(value, struct_info=None))
    var = b.var
    if isinstance(b, VarBinding) and value.struct_info is not None and \
            not structural_equal(value.struct_info, var.struct_info):
        var = type(var)(var.name_hint, value.struct_info)
        renamed[b.var] = var
    return replace(b, var=var, value=value)


def _rewritten(pattern: DFPattern, rewriter: Callable, b: Any,
               var2val: dict[Var, Expr]) -> Expr | None:
    if isinstance(b, MatchCast):
        return None
    # NOTE: a rewriter that declines one alternative of an `|` pattern (returns the value as
    # it is) lets the next alternative try, as TVM backtracks
    for alternative in _alternatives(pattern):
        matches = alternative.extract_matched_expr(b.value, var2val)
        if matches is None:
            continue
        matches.setdefault(pattern, matches[alternative])
        new = rewriter(b.value, matches)
        if new is None or new is b.value:
            continue
        if not structural_equal(new, b.value):
            return new
    return None


def _alternatives(pattern: DFPattern) -> list[DFPattern]:
    if isinstance(pattern, OrPattern):
        return [*_alternatives(pattern.left), *_alternatives(pattern.right)]
    return [pattern]


class Emitter:
    """Binds the nested calls of a new value to fresh variables (once per object), appending
    the bindings to `out`; `flatten` returns the value with leaves for arguments."""

    def __init__(self, out: list[Any], dataflow: bool = True) -> None:
        self.out = out
        self.var_class = DataflowVar if dataflow else Var
        self.bound: dict[int, Var] = {}

    def flatten(self, e: Expr, top: bool = False) -> Expr:
        if isinstance(e, Call):
            e = replace(e, args=tuple(self.leaf(a) for a in e.args))
            if e.struct_info is None and isinstance(e.op, Op):  # a Call the rewriter made
                e = with_inferred_struct_info(e)
        elif isinstance(e, Tuple):
            e = replace(e, fields=tuple(self.leaf(f) for f in e.fields))
        elif isinstance(e, TupleGetItem):
            e = replace(e, tuple_value=self.leaf(e.tuple_value))
        return e

    def leaf(self, e: Expr) -> Expr:
        if isinstance(e, Tuple):
            return self.flatten(e)
        if not isinstance(e, (Call, TupleGetItem, SeqExpr)):
            return e
        if id(e) not in self.bound:
            var = self.var_class("lv", e.struct_info)
            self.out.append(VarBinding(var, self.flatten(e)))
            self.bound[id(e)] = var
        return self.bound[id(e)]
