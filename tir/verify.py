"""Well-formedness of TIR: every variable and buffer is used inside the scope that defines it.

Checked: variables are bound (params, shape variables of the buffer map, loops, lets, block
iterators) before use; buffers are used only within the function's buffer map, an enclosing
block's `alloc_buffers`/`match_buffers`, or a `DeclBuffer`/`Allocate` body; a block sees the
loop variables around it only through its iterator bindings (TVM's rule), each iterator has
one binding of its own dtype, and reduction blocks alone have a `T.init()`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import expr as tx
from . import stmt as ts
from .function import PrimFunc, free_vars
from .loop_steps import unit_steps
from .nest_flat import nest_flat


class TIRWellFormedError(ValueError):
    """A PrimFunc breaks a scoping rule; the message names the function and the culprit."""


class _Verifier:
    def __init__(self, name: str) -> None:
        self.name = name
        self.vars: list[set[tx.Var]] = [set()]
        self.bufs: list[set[ts.Buffer]] = [set()]
        self.errors: list[str] = []

    def error(self, msg: str) -> None:
        self.errors.append(f"in prim_func {self.name!r}: {msg}")

    def defined(self, v: tx.Var) -> bool:
        return any(v in s for s in self.vars)

    def visible(self, b: ts.Buffer) -> bool:
        return any(b in s for s in self.bufs)

    def push(self, vars_: Any = (), bufs: Any = (), hide_vars: bool = False) -> None:
        for v in vars_:
            if self.defined(v):
                self.error(f"variable {v.name!r} is bound twice")
        self.vars.append(set(vars_))
        self.bufs.append(set(bufs))
        if hide_vars:  # NOTE: a block hides the loop variables around it
            self.hidden = getattr(self, "hidden", [])
            self.hidden.append(len(self.vars) - 1)

    def pop(self, hide_vars: bool = False) -> None:
        self.vars.pop()
        self.bufs.pop()
        if hide_vars:
            self.hidden.pop()

    def var_ok(self, v: tx.Var) -> bool:
        start = max(getattr(self, "hidden", None) or [0])
        return v in self.vars[0] or any(v in s for s in self.vars[start:])

    # -- walking ----------------------------------------------------------------------------

    def expr(self, e: Any) -> None:
        if isinstance(e, tx.Var):
            if not self.var_ok(e):
                used = "a loop variable outside the block's iterator bindings" \
                    if self.defined(e) else "an undefined variable"
                self.error(f"{e.name!r} ({e.dtype}) is {used}")
        elif isinstance(e, tx.BufferLoad):
            self.buffer(e.buffer)
            for i in e.indices:
                self.expr(i)
        elif isinstance(e, tx.Let):
            self.expr(e.value)
            self.push([e.var])
            self.expr(e.body)
            self.pop()
        elif dataclasses.is_dataclass(e):
            for f in dataclasses.fields(e):
                if f.name != "span":
                    value = getattr(e, f.name)
                    for x in value if isinstance(value, tuple) else (value,):
                        if isinstance(x, tx.PrimExpr):
                            self.expr(x)

    def buffer(self, b: ts.Buffer) -> None:
        if not self.visible(b):
            self.error(f"buffer {b.name!r} is used outside the scope that defines it")

    def stmt(self, s: Any) -> None:
        getattr(self, "_" + type(s).__name__, self._generic)(s)

    def _generic(self, s: Any) -> None:
        for f in dataclasses.fields(s):
            value = getattr(s, f.name)
            if isinstance(value, ts.Stmt):
                self.stmt(value)
            elif isinstance(value, tx.PrimExpr):
                self.expr(value)
            elif isinstance(value, ts.Buffer):
                self.buffer(value)

    def _SeqStmt(self, s: ts.SeqStmt) -> None:
        for x in s.seq:
            self.stmt(x)

    def _BufferStore(self, s: ts.BufferStore) -> None:
        self.buffer(s.buffer)
        self.expr(s.value)
        for i in s.indices:
            self.expr(i)

    def _scoped(self, body: ts.Stmt, vars_: Any = (), bufs: Any = ()) -> None:
        self.push(vars_, bufs)
        self.stmt(body)
        self.pop()

    def _For(self, s: ts.For) -> None:
        self.expr(s.min)
        self.expr(s.extent)
        self._scoped(s.body, [s.loop_var])

    def _LetStmt(self, s: ts.LetStmt) -> None:
        self.expr(s.value)
        self._scoped(s.body, [s.var])

    def _AttrStmt(self, s: ts.AttrStmt) -> None:
        self.expr(s.value)
        if isinstance(s.node, ts.IterVar):  # a thread launch binds its thread index
            self._scoped(s.body, [s.node.var])
        else:
            if isinstance(s.node, tx.PrimExpr):
                self.expr(s.node)
            self.stmt(s.body)

    def _DeclBuffer(self, s: ts.DeclBuffer) -> None:
        self._scoped(s.body, bufs=[s.buffer])

    _Allocate = _DeclBuffer

    def _BlockRealize(self, s: ts.BlockRealize) -> None:
        b = s.block
        for v in s.iter_values:
            self.expr(v)
        self.expr(s.predicate)
        if len(s.iter_values) != len(b.iter_vars):
            self.error(f"block {b.name!r} has {len(b.iter_vars)} iterators but "
                       f"{len(s.iter_values)} bindings")
        for iv, v in zip(b.iter_vars, s.iter_values):
            if iv.var.dtype != v.dtype:
                self.error(f"block {b.name!r}: iterator {iv.var.name!r} is {iv.var.dtype} but "
                           f"is bound to a {v.dtype} value")
        if b.init is not None and not any(iv.iter_type is ts.IterType.REDUCE
                                          for iv in b.iter_vars) and b.iter_vars:
            self.error(f"block {b.name!r} has T.init() but no reduction iterator")
        self.push([iv.var for iv in b.iter_vars],
                  list(b.alloc_buffers) + [m.buffer for m in b.match_buffers], hide_vars=True)
        for m in b.match_buffers:
            self.buffer(m.source.buffer)
        for r in b.reads + b.writes:
            self.buffer(r.buffer)
            for rng in r.region:
                self.expr(rng.min)
                self.expr(rng.extent)
        if b.init is not None:
            self.stmt(b.init)
        self.stmt(b.body)
        self.pop(hide_vars=True)

    _Block = _generic


def verify_well_formed(func: Any, assert_mode: bool = True) -> bool:
    """Check a PrimFunc (or every prim_func of an IRModule); raise or return False if bad."""
    funcs = _prim_funcs(func)
    errors: list[str] = []
    for name, f in funcs:
        errors += _verify(name, f)
    if errors and assert_mode:
        raise TIRWellFormedError("TIR is not well formed:\n  " + "\n  ".join(errors))
    return not errors


def _prim_funcs(x: Any) -> list[tuple[str, PrimFunc]]:
    if isinstance(x, PrimFunc):
        return [(x.attr_dict.get("global_symbol", "main"), x)]
    return [(gv.name_hint, f) for gv, f in x.functions.items() if isinstance(f, PrimFunc)]


def _verify(name: str, f: PrimFunc) -> list[str]:
    f = unit_steps(nest_flat(f))  # TVM 0.27's flat statements scope over their siblings
    v = _Verifier(name)
    v.vars[0].update(f.params)
    for _, buf in f.buffer_map:
        v.bufs[0].add(buf)
        for e in (*buf.shape, *buf.strides, buf.elem_offset):
            if e is not None:
                v.vars[0].update(free_vars(e))  # shape variables are bound by the call
    v.stmt(f.body)
    return v.errors
