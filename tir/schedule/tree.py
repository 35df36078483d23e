"""Paths in the immutable statement tree: find a block or loop, replace or remove a subtree.

A path is the list of statements from the function body down to a node. Replacing the last node
rebuilds only its ancestors (`replace`), which is how every primitive makes its new function.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator

from ..expr import IntImm, Var
from ..function import PrimFunc
from ..functor import fields_of
from ..stmt import (
    Allocate, AssertStmt, Block, BlockRealize, DeclBuffer, For, IfThenElse, LetStmt, SeqStmt,
    Stmt, While, seq,
)

Path = list[Stmt]


def children(s: Stmt) -> list[Stmt]:
    if isinstance(s, SeqStmt):
        return list(s.seq)
    if isinstance(s, (For, While, LetStmt, Allocate, DeclBuffer, AssertStmt)):
        return [s.body]
    if isinstance(s, IfThenElse):
        return [s.then_case] + ([s.else_case] if s.else_case is not None else [])
    if isinstance(s, BlockRealize):
        return [s.block]
    if isinstance(s, Block):
        return ([s.init] if s.init is not None else []) + [s.body]
    return []


def walk(s: Stmt, path: Path | None = None) -> Iterator[Path]:
    """Every statement below (and including) `s`, as its path, in pre-order."""
    path = (path or []) + [s]
    yield path
    for c in children(s):
        yield from walk(c, path)


def find(root: Stmt, pred: Callable[[Stmt], bool]) -> Path | None:
    for path in walk(root):
        if pred(path[-1]):
            return path
    return None


def find_all(root: Stmt, pred: Callable[[Stmt], bool]) -> list[Path]:
    return [p for p in walk(root) if pred(p[-1])]


def block_path(root: Stmt, name: str) -> Path | None:
    """The path to the BlockRealize of the block called `name`."""
    return find(root, lambda s: isinstance(s, BlockRealize) and s.block.name == name)


def loop_path(root: Stmt, var: Var) -> Path | None:
    return find(root, lambda s: isinstance(s, For) and s.loop_var is var)


def loops_above(path: Path) -> list[For]:
    """The loops between the node and its enclosing block (TVM's get_loops), outermost first."""
    out: list[For] = []
    for s in reversed(path[:-1]):
        if isinstance(s, (Block, BlockRealize)):
            break
        if isinstance(s, For):
            out.append(s)
    return out[::-1]


def _replace_child(parent: Stmt, old: Stmt, new: Stmt | None) -> Stmt | None:
    """`parent` with its child `old` replaced by `new` (None removes it)."""
    if isinstance(parent, SeqStmt):
        items: list[Stmt] = []
        for c in parent.seq:
            if c is old:
                items += [] if new is None else [new]
            else:
                items.append(c)
        return seq(items) if items else None
    for name in fields_of(parent):
        if getattr(parent, name) is old:
            if new is None:
                if isinstance(parent, Block) and name == "init":
                    return dataclasses.replace(parent, init=None)
                if isinstance(parent, IfThenElse) and name == "else_case":
                    return dataclasses.replace(parent, else_case=None)
                return None  # a loop (or let, ...) with nothing left in it goes too
            return dataclasses.replace(parent, **{name: new})
    raise ValueError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


def replace(path: Path, new: Stmt | None) -> Stmt:
    """The root of `path` with its last node replaced by `new` (None: removed)."""
    node = new
    for i in range(len(path) - 1, 0, -1):
        node = _replace_child(path[i - 1], path[i], node)
    if node is None:
        return SeqStmt(())
    return node


def with_body(func: PrimFunc, body: Stmt) -> PrimFunc:
    return func.with_body(body)


def root_block(func: PrimFunc) -> PrimFunc:
    """`func` with its body inside a `root` block (TVM always has one; the parser adds it only
    when there are function-level allocations)."""
    body = func.body
    if isinstance(body, BlockRealize) and body.block.name == "root" and not body.iter_values:
        return func
    block = Block("root", (), body)
    return func.with_body(BlockRealize((), IntImm("bool", 1), block))


def add_root_alloc(func: PrimFunc, buf: Any) -> PrimFunc:
    func = root_block(func)
    br = func.body
    assert isinstance(br, BlockRealize)
    block = dataclasses.replace(br.block, alloc_buffers=br.block.alloc_buffers + (buf,))
    return func.with_body(dataclasses.replace(br, block=block))


def blocks_under(s: Stmt) -> list[BlockRealize]:
    return [p[-1] for p in walk(s) if isinstance(p[-1], BlockRealize)]  # type: ignore[misc]


def exclusive_top(path: Path) -> int:
    """Index in `path` of the highest ancestor loop that holds nothing but this node."""
    top = len(path) - 1
    while top > 0 and isinstance(path[top - 1], For):
        top -= 1
    return top
