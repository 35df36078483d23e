"""Visitor and mutator over the graph IR, dispatching `visit_<ClassName>` (STYLE habit 2).

The mutator rebuilds a node only when one of its children changed, so unchanged subtrees keep
their identity (and passes that change nothing return the very same function).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .expr import (
    BindingBlock,
    Call,
    Expr,
    Function,
    If,
    MatchCast,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
    VarBinding,
)


class ExprVisitor:
    """Walks every expression; override `visit_<Class>` and call `self.generic_visit(node)`."""

    def visit(self, node: Any) -> Any:
        return getattr(self, "visit_" + type(node).__name__, self.generic_visit)(node)

    def generic_visit(self, node: Any) -> None:
        for child in _children(node):
            self.visit(child)


class ExprMutator:
    """Returns a new expression; `visit_<Class>` overrides return the replacement node."""

    def visit(self, node: Any) -> Any:
        return getattr(self, "visit_" + type(node).__name__, self.generic_visit)(node)

    def generic_visit(self, node: Any) -> Any:
        if isinstance(node, Call):
            op = self.visit(node.op)
            args = tuple(self.visit(a) for a in node.args)
            if op is node.op and _same(args, node.args):
                return node
            return replace(node, op=op, args=args)
        if isinstance(node, Tuple):
            fields = tuple(self.visit(f) for f in node.fields)
            return node if _same(fields, node.fields) else replace(node, fields=fields)
        if isinstance(node, TupleGetItem):
            t = self.visit(node.tuple_value)
            return node if t is node.tuple_value else replace(node, tuple_value=t)
        if isinstance(node, SeqExpr):
            return self.visit_seq_expr(node)
        if isinstance(node, If):
            parts = (self.visit(node.cond), self.visit(node.true_branch),
                     self.visit(node.false_branch))
            if _same(parts, (node.cond, node.true_branch, node.false_branch)):
                return node
            return replace(node, cond=parts[0], true_branch=parts[1], false_branch=parts[2])
        if isinstance(node, Function):
            body = self.visit(node.body)
            return node if body is node.body else replace(node, body=body)
        return node  # leaves: Var, Constant, Op, ExternFunc, GlobalVarRef, ShapeExpr, ...

    def visit_seq_expr(self, node: SeqExpr) -> SeqExpr:
        blocks = tuple(self.visit_block(b) for b in node.blocks)
        body = self.visit(node.body)
        if _same(blocks, node.blocks) and body is node.body:
            return node
        return replace(node, blocks=blocks, body=body)

    def visit_block(self, block: BindingBlock) -> BindingBlock:
        bindings = tuple(self.visit_binding(b) for b in block.bindings)
        return block if _same(bindings, block.bindings) else replace(block, bindings=bindings)

    def visit_binding(self, binding: VarBinding | MatchCast) -> VarBinding | MatchCast:
        value = self.visit(binding.value)
        return binding if value is binding.value else replace(binding, value=value)


def _same(new: tuple[Any, ...], old: tuple[Any, ...]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _children(node: Any) -> list[Any]:
    if isinstance(node, Call):
        return [node.op, *node.args]
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    if isinstance(node, SeqExpr):
        values = [b.value for blk in node.blocks for b in blk.bindings]
        return [*values, node.body]
    if isinstance(node, If):
        return [node.cond, node.true_branch, node.false_branch]
    if isinstance(node, Function):
        return [node.body]
    return []


def substitute_vars(expr: Expr, mapping: dict[Var, Expr]) -> Expr:
    """Replace uses of variables (by identity) with other expressions."""

    class _Subst(ExprMutator):
        def visit_Var(self, v: Var) -> Expr:
            return mapping.get(v, v)

        visit_DataflowVar = visit_Var

    return _Subst().visit(expr)


def var_use_counts(*exprs: Expr) -> dict[Var, int]:
    """How many times each variable is used in `exprs` (uses only; bindings do not count)."""
    counts: dict[Var, int] = {}

    class _Count(ExprVisitor):
        def visit_Var(self, v: Var) -> None:  # noqa: N802
            counts[v] = counts.get(v, 0) + 1

        visit_DataflowVar = visit_Var

    for e in exprs:
        _Count().visit(e)
    return counts
