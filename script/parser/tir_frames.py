"""Statement frames of the TIR parser beyond blocks: attributes and thread launches
(`T.attr`, `T.launch_thread`), and the builder-style control flow `T.If`/`T.Then`/`T.Else`
and `T.While`.

A frame is what a `T.` call returns; `with frame:` gives it a body, and a frame written as a
plain statement (`T.attr(...)`, `bx = T.launch_thread(...)`) scopes over the rest of the body.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from .core import Parser, Wrap


@dataclass
class AttrFrame:
    """`T.attr(node, key, value)`: an `AttrStmt` over a body."""

    node: Any
    attr_key: str
    value: tx.PrimExpr

    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.AST) -> ts.Stmt:
        return ts.AttrStmt(self.node, self.attr_key, self.value, ts.seq(body),
                           p.source.span(node))

    def wrap(self, p: Parser, node: ast.AST) -> Wrap:
        return Wrap(lambda body: self.finish(p, body, node))


@dataclass
class LaunchFrame(AttrFrame):
    """`T.launch_thread("blockIdx.x", 64)`: the thread index is `node.var`, named by the
    assignment or the `as` target."""

    tag: str = ""

    def named(self, name: str) -> LaunchFrame:
        """This launch with its thread variable renamed (a fresh `T.launch_thread("tag")`)."""
        iv = self.node
        if iv.var.name == name:
            return self
        var = tx.Var(name, iv.var.dtype)
        return LaunchFrame(ts.IterVar(var, iv.dom, iv.iter_type, iv.thread_tag),
                           self.attr_key, self.value, self.tag)


@dataclass
class IfFrame:
    """`with T.If(cond):` holding `with T.Then():` and optionally `with T.Else():`."""

    condition: tx.PrimExpr
    then_case: ts.Stmt | None = None
    else_case: ts.Stmt | None = None

    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.AST) -> ts.Stmt:
        if self.then_case is None:
            p.error(node, "a T.If frame needs a `with T.Then():` inside")
        return ts.IfThenElse(self.condition, self.then_case, self.else_case,  # type: ignore
                             p.source.span(node))


@dataclass
class ThenFrame:
    else_branch: bool = False

    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.AST) -> None:
        frame = p.frames[-1] if p.frames else None  # NOTE: finish runs after this frame left
        what = "T.Else()" if self.else_branch else "T.Then()"
        if not isinstance(frame, IfFrame):
            p.error(node, f"{what} must be directly inside `with T.If(...)`")
        stmt = ts.seq(body) if body else ts.SeqStmt(())
        if self.else_branch:
            frame.else_case = stmt  # type: ignore[union-attr]
        else:
            frame.then_case = stmt  # type: ignore[union-attr]


@dataclass
class WhileFrame:
    """`with T.While(cond):` the builder spelling of `while cond:`."""

    condition: tx.PrimExpr

    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.AST) -> ts.Stmt:
        return ts.While(self.condition, ts.seq(body) if body else ts.SeqStmt(()),
                        p.source.span(node))


STMT_FRAMES = (AttrFrame, IfFrame, ThenFrame, WhileFrame)
