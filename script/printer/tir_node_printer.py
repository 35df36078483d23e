"""`.script()` of a single TIR node (expression, statement, buffer, region, type), as TVM 0.27
prints one: the variables and buffers it uses but does not define come first, each as its own
definition line (`a = T.int32()`, `A = T.Buffer((128, 128), "float16")`), then the node.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.expr_nodes import CommReducer
from .tir_printer import TIRPrinter
from .walk import children, tir_defs_and_uses


def print_node(obj: Any) -> str:
    """The node as TVMScript text, preceded by the definitions of what it uses freely."""
    p = TIRPrinter()
    bound: set[int] = set()
    if isinstance(obj, ts.Stmt):
        free, bound = _free_in(obj)
        for x in free:  # named at the top, before any inner scope
            p.namer.define(x, x.name)
        p.stmt(obj)
        text = "\n".join(p.lines)
    else:
        text = _node_text(p, obj)
    # NOTE: TVM 0.27's flat statements (Bind, AllocBuffer) define names in the outermost scope
    defs = [_definition(p, o, name) for o, name in _free_names(p) if id(o) not in bound]
    return "\n".join([d for d in defs if d] + [text])


def _node_text(p: TIRPrinter, obj: Any) -> str:
    if isinstance(obj, ts.Buffer):
        return p.name_of(obj)
    if isinstance(obj, ts.BufferRegion):
        return p._region(obj)
    if isinstance(obj, ts.Range):
        return f"I.Range({_bounds(p, obj)})"
    if isinstance(obj, ts.IterVar):
        dom = f"T.Range({_bounds(p, obj.dom)})"
        return (f"T.iter_var({p.name_of(obj.var)}, {dom}, {_ITER_KIND[obj.iter_type.value]!r},"
                f" {_quoted(obj.thread_tag or '')})").replace("'", '"')
    if isinstance(obj, CommReducer):
        return p._comm_reducer(obj)
    if isinstance(obj, tx.Let):
        return f"T.Let({p.expr(obj.body)}, where={{{p.name_of(obj.var)}: {p.expr(obj.value)}}})"
    return p.expr(obj)


def _bounds(p: TIRPrinter, r: ts.Range) -> str:
    """`begin, end` of a range kept as (min, extent)."""
    end = r.min + r.extent
    if isinstance(r.min, tx.IntImm) and isinstance(r.extent, tx.IntImm):
        end = tx.IntImm(r.extent.dtype, r.min.value + r.extent.value)
    return f"{p.expr(r.min)}, {p.expr(end)}"


_ITER_KIND = {"S": "DataPar", "R": "CommReduce", "O": "Opaque"}


def _quoted(s: str) -> str:
    return '"' + s + '"'


def _free_in(stmt: ts.Stmt) -> tuple[list[Any], set[int]]:
    """Variables and buffers the statement uses but does not bind, in order of first use; and
    the ids of what it binds."""
    defs, uses = tir_defs_and_uses(stmt)
    bound: set[int] = set()
    found: list[Any] = []

    def visit(x: Any) -> None:
        if isinstance(x, ts.Buffer):
            if id(x) not in bound and all(x is not f for f in found):
                found.append(x)
            return
        if isinstance(x, ts.Block):
            bound.update(id(b) for b in x.alloc_buffers)
            bound.update(id(m.buffer) for m in x.match_buffers)
        elif isinstance(x, (ts.DeclBuffer, ts.Allocate, ts.AllocBuffer)):
            bound.add(id(x.buffer))
        if dataclasses.is_dataclass(x) and not isinstance(x, (type, tx.Var)):
            for c in children(x):
                visit(c)

    visit(stmt)
    return [v for v in uses if v not in defs] + found, bound | {id(v) for v in defs}


def _free_names(p: TIRPrinter) -> list[tuple[Any, str]]:
    """What the printed node named in its outermost scope, in order of first use."""
    by_id = {id(o): o for o in p.namer.keep}
    return [(by_id[k], name) for k, name in p.namer.names.items()
            if k in by_id and "." not in name]


def _definition(p: TIRPrinter, obj: Any, name: str) -> str | None:
    if isinstance(obj, ts.Buffer):
        if obj.dtype == "float32":
            return f"{name} = T.Buffer({p._buffer_args(obj, False)})"
        return f"{name} = T.Buffer({p._buffer_args(obj, True)})"
    if isinstance(obj, tx.Var) and type(obj.dtype).__name__ == "PointerType":
        text = print_type(obj.dtype)  # `T.handle(storage_scope="shared")` is already a call
        return f"{name} = {text}" if text.endswith(")") else f"{name} = {text}()"
    if isinstance(obj, tx.Var):
        return f"{name} = T.{obj.dtype}()"
    return None


def print_type(obj: Any) -> str:
    """`T.float32`, `T.handle("int32", "global")`, `T.Tuple(T.float32, T.int32)`."""
    kind = type(obj).__name__
    if kind == "PointerType":
        elem = getattr(obj.element_type, "dtype", "void")
        scope = obj.storage_scope
        if elem == "void":
            return f'T.handle(storage_scope="{scope}")' if scope else "T.handle"
        return f'T.handle("{elem}", "{scope or "global"}")'
    if kind in ("TupleType", "TupleStructInfo"):
        fields = getattr(obj, "fields", None)
        return f"T.Tuple({', '.join(print_type(f) for f in fields)})"
    return f"T.{obj.dtype}"
