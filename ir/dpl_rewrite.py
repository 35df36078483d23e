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

from .dpl import DFPattern
from .expr import (
    Call, DataflowBlock, DataflowVar, Expr, Function, MatchCast, Op, SeqExpr, Tuple,
    TupleGetItem, Var, VarBinding,
)
from .op import with_inferred_struct_info

_MAX_REWRITES = 10000


def rewrite_call(pattern: DFPattern, rewriter: Callable[[Expr, dict[DFPattern, Expr]], Expr],
                 func: Function) -> Function:
    """Replace every bound value matching `pattern` by `rewriter(value, matches)`."""
    from ..transforms.simple_passes import remove_unused

    var2val: dict[Var, Expr] = {}
    blocks = tuple(_rewrite_block(pattern, rewriter, b, var2val) for b in func.body.blocks)
    if all(a is b for a, b in zip(blocks, func.body.blocks)):
        return func
    out = replace(func, body=replace(func.body, blocks=blocks))
    if any(isinstance(b, VarBinding) and isinstance(b.value, Var)
           for blk in blocks for b in blk.bindings):
        from ..transforms.canonicalize import canonicalize

        out = canonicalize(out)
    return remove_unused(out)


def _rewrite_block(pattern: DFPattern, rewriter: Callable, block: Any,
                   var2val: dict[Var, Expr]) -> Any:
    bindings = list(block.bindings)
    changed, i, budget = False, 0, _MAX_REWRITES
    while i < len(bindings):
        b = bindings[i]
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
        bindings[i:i + 1] = [*prefix, replace(b, value=top)]
        changed = True  # NOTE: i stays, so the new bindings are matched too
    return replace(block, bindings=tuple(bindings)) if changed else block


def _rewritten(pattern: DFPattern, rewriter: Callable, b: Any,
               var2val: dict[Var, Expr]) -> Expr | None:
    if isinstance(b, MatchCast):
        return None
    matches = pattern.extract_matched_expr(b.value, var2val)
    if matches is None:
        return None
    new = rewriter(b.value, matches)
    if new is None or new is b.value:
        return None
    from .structural import structural_equal

    return None if structural_equal(new, b.value) else new


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
