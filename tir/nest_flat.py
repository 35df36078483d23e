"""`nest_flat`: TVM 0.27's flat scope statements (`Bind`, `AllocBuffer`, a `DeclBuffer`
without body) turned into the nested `LetStmt` / `Allocate` / `DeclBuffer` over the statements
that follow them, the form every pass and codegen read."""

from __future__ import annotations

from typing import Any

from .expr import IntImm
from .functor import Mutator
from .stmt import AllocBuffer, Allocate, Bind, DeclBuffer, Evaluate, LetStmt, SeqStmt, Stmt, seq

_FLAT = (Bind, AllocBuffer)


def is_flat(s: Any) -> bool:
    """Does `s` scope over the statements after it rather than over a body of its own?"""
    return isinstance(s, _FLAT) or (type(s) is DeclBuffer and s.body is None)


def _nested(flat: Stmt, rest: Stmt) -> Stmt:
    if type(flat) is Bind:
        return LetStmt(flat.var, flat.value, rest, flat.span)
    if type(flat) is AllocBuffer:
        return Allocate(flat.buffer, rest, flat.span)
    return DeclBuffer(flat.buffer, rest, flat.span)  # type: ignore[attr-defined]


def _nest_seq(stmts: tuple[Stmt, ...]) -> Stmt:
    """The statements, each flat one wrapped around the rest (an empty rest: TVM's no-op)."""
    out: Stmt | None = None
    for s in reversed(stmts):
        if is_flat(s):
            out = _nested(s, out if out is not None else Evaluate(IntImm("int32", 0)))
        else:
            out = s if out is None else seq([s, out])
    return out if out is not None else Evaluate(IntImm("int32", 0))


class _Nest(Mutator):
    def visit_SeqStmt(self, s: SeqStmt) -> Stmt:
        # a flat item scopes over its siblings: rebuild its fields only, not the item alone
        items = tuple(self.generic_visit(x) if is_flat(x) else self.visit(x) for x in s.seq)
        if not any(is_flat(x) for x in items):
            return s if all(a is b for a, b in zip(items, s.seq)) else SeqStmt(items, s.span)
        return _nest_seq(items)

    def visit_Bind(self, s: Bind) -> Stmt:  # a lone flat statement: the body is empty
        return _nest_seq((s,))

    def visit_AllocBuffer(self, s: AllocBuffer) -> Stmt:
        return _nest_seq((s,))

    def visit_DeclBuffer(self, s: DeclBuffer) -> Stmt:
        if s.body is None:
            return _nest_seq((s,))
        return self.generic_visit(s)


def has_flat(node: Any) -> bool:
    from .functor import any_node

    return any_node(node, is_flat)


def nest_flat(node: Any) -> Any:
    """`node` (a statement or a PrimFunc) with every flat scope statement nested; the same
    object when it holds none."""
    if not has_flat(node):
        return node
    if hasattr(node, "with_body"):
        return node.with_body(_Nest().visit(node.body))
    return _Nest().visit(node)
