"""Walks over IR dataclasses that the printer uses to find variables a function never binds."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.expr_nodes import CommReducer


def children(node: Any) -> list[Any]:
    """The non-span field values of a dataclass node (tuples flattened one level)."""
    out: list[Any] = []
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        if isinstance(value, (tuple, list)):
            for x in value:
                out.extend(x if isinstance(x, tuple) else (x,))
        else:
            out.append(value)
    return out


def tir_defs_and_uses(node: Any) -> tuple[set[tx.Var], list[tx.Var]]:
    """Variables bound by binders (params, loops, lets, block iterators) and all used ones."""
    defs: set[tx.Var] = set()
    uses: list[tx.Var] = []
    seen_bufs: set[int] = set()

    def visit(x: Any) -> None:
        if isinstance(x, tx.Var):
            if x not in uses:
                uses.append(x)
            return
        if isinstance(x, ts.Buffer):
            if id(x) not in seen_bufs:
                seen_bufs.add(id(x))
                for e in (*x.shape, *x.strides, x.elem_offset):
                    if e is not None:
                        visit(e)
            return
        if isinstance(x, ts.For):
            defs.add(x.loop_var)
        elif isinstance(x, (ts.LetStmt, ts.Bind)):
            defs.add(x.var)
        elif isinstance(x, ts.IterVar):
            defs.add(x.var)
        elif isinstance(x, CommReducer):  # the lambda's parameters
            defs.update(x.lhs + x.rhs)
        elif isinstance(x, ts.Block):  # an allocation defines its data pointer
            defs.update(b.data for b in x.alloc_buffers if b.data is not None)
            # a matched region defines its buffer's handle and offset variable
            for m in x.match_buffers:
                defs.update(v for v in (m.buffer.data, m.buffer.elem_offset)
                            if isinstance(v, tx.Var))
        elif isinstance(x, ts.DeclBuffer) and x.buffer.data is not None:
            visit(x.buffer.data)  # a view reads the memory of another buffer or a pointer
        elif isinstance(x, (ts.Allocate, ts.AllocBuffer)) and x.buffer.data is not None:
            defs.add(x.buffer.data)
        elif hasattr(x, "params") and hasattr(x, "buffer_map"):
            defs.update(x.params)
            for _, buf in x.buffer_map:
                visit(buf)
            visit(x.body)
            return
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            for c in children(x):
                visit(c)

    visit(node)
    return defs, uses
