"""Checks and helpers of the TIR parser: loop targets (`for i, j`, `for idx`, `for *outer, k`),
the mistakes TVM refuses (assigning to a loop variable, a block using a buffer's data pointer
without T.reads/T.writes), and block names made unique across macro expansions.
"""

from __future__ import annotations

import ast
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from .core import Parser


def _frames() -> Any:
    from . import tir_parser  # NOTE: tir_parser imports this module

    return tir_parser


def loop_names(p: Parser, target: ast.expr, n: int) -> list[tuple[str, ast.AST]]:
    """A name per loop for `for i, j in`, `for idx in T.grid(...)` (idx is the tuple of
    loop variables) and `for *outer, k in` (outer is the list of all but the last)."""
    elts = target.elts if isinstance(target, ast.Tuple) else [target]
    starred = [e for e in elts if isinstance(e, ast.Starred)]
    plain = all(isinstance(e.value if isinstance(e, ast.Starred) else e, ast.Name) for e in elts)
    if not plain or len(starred) > 1:
        p.error(target, "loop variables must be plain names")
    if isinstance(target, ast.Name) and n > 1:
        return [(f"{target.id}_{k}", target) for k in range(n)]
    if starred:
        fill = n - (len(elts) - 1)
        if fill < 0:
            p.error(target, f"{len(elts) - 1} loop variables for {n} loops")
        out: list[tuple[str, ast.AST]] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out += [(f"{e.value.id}_{k}", e) for k in range(fill)]  # type: ignore[attr-defined]
            else:
                out.append((e.id, e))  # type: ignore[attr-defined]
        return out
    if len(elts) != n:
        p.error(target, f"{len(elts)} loop variables for {n} loops")
    return [(e.id, e) for e in elts]  # type: ignore[attr-defined]


def bind_loop_targets(p: Parser, target: ast.expr, loop_vars: list[tx.Var]) -> None:
    if isinstance(target, ast.Name):
        p.bind(target.id, loop_vars[0] if len(loop_vars) == 1 else tuple(loop_vars))
        return
    elts = target.elts  # type: ignore[attr-defined]
    fill = len(loop_vars) - (len(elts) - 1)
    k = 0
    for e in elts:
        if isinstance(e, ast.Starred):
            p.bind(e.value.id, list(loop_vars[k:k + fill]))
            k += fill
        else:
            p.bind(e.id, loop_vars[k])
            k += 1


def check_not_loop_var(p: Parser, name: str, node: ast.AST) -> None:
    """`i = i + 1` inside `for i in ...` is an error, as in TVM: a loop variable is bound by
    its loop, and a new `i` would silently shadow it for the rest of the body."""
    for scope in reversed(p.scopes):
        if name in scope:
            bound = scope[name]
            frame = p.find_frame(_frames().PrimFuncFrame)
            if isinstance(bound, tx.Var) and frame is not None and bound in frame.loop_dom:
                p.error(node, f"cannot assign to loop variable {name!r} inside its loop; "
                              "use another name")
            return


def block_name(p: Parser, name: str) -> str:
    """The block's name; a block a macro expands again gets a suffix (`op`, `op_1`, ...)."""
    seen = _frames().func_frame(p).block_names
    if name in seen and getattr(p, "macro_depth", 0):
        seen[name] += 1
        return f"{name}_{seen[name]}"
    seen.setdefault(name, 0)
    return name


def check_no_opaque_access(p: Parser, block: Any, body: list[ts.Stmt],
                            node: ast.With) -> None:
    """TVM infers a block's T.reads/T.writes, and refuses when the body uses a buffer through
    its data pointer (`A.data` passed to an extern call): the region cannot be inferred."""
    from ...tir.functor import Visitor

    frame = _frames().func_frame(p)
    owners = {buf.data: buf for _, buf in frame.buffer_map}
    owners.update({b.data: b for b in frame.root_allocs})
    for f in p.frames:
        if isinstance(f, _frames().BlockFrame):
            owners.update({b.data: b for b in f.allocs})
    found: list[ts.Buffer] = []

    class _Opaque(Visitor):
        def visit_Var(self, v: tx.Var) -> None:
            if v in owners:
                found.append(owners[v])

        def visit_BlockRealize(self, s: ts.BlockRealize) -> None:
            pass  # a nested block answers for its own accesses

    for stmt in body:
        _Opaque().visit(stmt)
    if found:
        p.error(node, f"this block uses buffer {found[0].name!r} through its data pointer, so "
                      "its accessed region cannot be inferred: annotate it with T.reads(...) "
                      "and T.writes(...)")


def bind_meta(p: Parser, target: ast.expr, value: Any, node: ast.AST) -> None:
    if isinstance(target, ast.Name):
        p.bind(target.id, value)
        return
    if not isinstance(target, (ast.Tuple, ast.List)):
        p.error(target, "T.meta_var values are bound to names")
    values = list(value)
    if len(values) != len(target.elts):
        p.error(node, f"cannot unpack {value!r} into {len(target.elts)} names")
    for t, v in zip(target.elts, values):
        bind_meta(p, t, v, node)


def allocated_here(p: Parser, buf: ts.Buffer) -> bool:
    """Was `buf` just made by T.alloc_buffer / T.match_buffer in this function?"""
    frame = _frames().func_frame(p)
    block = p.find_frame(_frames().BlockFrame)
    mine = list(frame.root_allocs) + [b for _, b in frame.buffer_map]
    if block is not None:
        mine += block.allocs + [m.buffer for m in block.match_buffers]
    return any(b is buf for b in mine)
