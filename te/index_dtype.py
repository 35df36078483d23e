"""`create_prim_func(..., index_dtype_override="int64")`: every index of the function widened.

TVM normalizes a te-built prim_func's index dtype after building it: buffer shapes, loop
ranges, block iter vars and their bindings, and buffer indices all become int64 (int32 ones
are widened; data values keep their dtypes). This does the same on tvmlite's PrimFunc.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..tir import expr as tx
from ..tir.dtype import is_int
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import Buffer, BufferStore, For, IterVar, Range

_NARROW = "int32"


class _WidenIndices(Mutator):
    """Rewrites int32 index expressions as int64 ones; int32 variables become int64."""

    def __init__(self, wide: str) -> None:
        self.wide = wide
        self.vars: dict[tx.Var, tx.Var] = {}
        self.buffers: dict[Buffer, Buffer] = {}

    def index(self, e: Any) -> Any:
        """An expression in an index position, widened."""
        if not isinstance(e, tx.PrimExpr) or e.dtype != _NARROW:
            return self.visit(e)
        if isinstance(e, tx.IntImm):
            return tx.IntImm(self.wide, e.value)
        if isinstance(e, tx.Var):
            return self.visit_Var(e)
        if isinstance(e, tx.BinOp):
            return tx.binop(e.op, self.index(e.a), self.index(e.b))
        return tx.Cast(self.wide, self.visit(e))  # data read as an index: cast it

    def visit_Var(self, v: tx.Var) -> tx.PrimExpr:
        if v.dtype != _NARROW:
            return v
        if v not in self.vars:
            self.vars[v] = tx.Var(v.name, self.wide)
        return self.vars[v]

    def visit_Cast(self, e: tx.Cast) -> tx.PrimExpr:
        value = self.visit(e.value)
        if value.dtype == e.dtype:  # a cast of an int32 index to int64: the index is int64 now
            return value
        return e if value is e.value else dataclasses.replace(e, value=value)

    def visit_BinOp(self, e: tx.BinOp) -> tx.PrimExpr:
        a, b = self.visit(e.a), self.visit(e.b)
        if a is e.a and b is e.b:
            return e
        if a.dtype != b.dtype and is_int(a.dtype) and is_int(b.dtype):
            return tx.binop(e.op, a, b)  # an index var beside an int32 literal: promoted
        return dataclasses.replace(e, a=a, b=b)

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        if buf not in self.buffers:
            shape = tuple(self.index(d) for d in buf.shape)
            self.buffers[buf] = dataclasses.replace(buf, shape=shape)
        return self.buffers[buf]

    def visit_Range(self, r: Range) -> Range:
        return Range(self.index(r.min), self.index(r.extent))

    def visit_IterVar(self, iv: IterVar) -> IterVar:
        dom = self.visit_Range(iv.dom) if iv.dom is not None else None
        return dataclasses.replace(iv, var=self.visit_Var(iv.var), dom=dom)

    def visit_For(self, s: For) -> For:
        return dataclasses.replace(s, loop_var=self.visit_Var(s.loop_var),
                                   min=self.index(s.min), extent=self.index(s.extent),
                                   body=self.visit(s.body))

    def visit_BufferLoad(self, e: tx.BufferLoad) -> tx.BufferLoad:
        return tx.BufferLoad(self.visit_buffer(e.buffer), tuple(self.index(i) for i in e.indices))

    def visit_BufferStore(self, s: BufferStore) -> BufferStore:
        return dataclasses.replace(s, buffer=self.visit_buffer(s.buffer), value=self.visit(s.value),
                                   indices=tuple(self.index(i) for i in s.indices))

    def visit_Block(self, b: Any) -> Any:
        b = self.generic_visit(b)
        attrs = tuple((k, [self.visit_buffer(x) if isinstance(x, Buffer) else x for x in v]
                       if isinstance(v, list) else v) for k, v in b.annotations)
        return dataclasses.replace(b, annotations=attrs)

    def visit_BlockRealize(self, s: Any) -> Any:
        return dataclasses.replace(s, iter_values=tuple(self.index(v) for v in s.iter_values),
                                   predicate=self.visit(s.predicate), block=self.visit(s.block))


def override_index_dtype(func: PrimFunc, dtype: str) -> PrimFunc:
    """`func` with its int32 indices widened to `dtype` (only "int64" is meaningful)."""
    if dtype != "int64":
        raise ValueError(f"te.create_prim_func: index_dtype_override must be 'int64', got "
                         f"{dtype!r}")
    widen = _WidenIndices(dtype)
    params = tuple(widen.visit_Var(p) if p.dtype == _NARROW else p for p in func.params)
    bmap = tuple((widen.visit_Var(p) if p.dtype == _NARROW else p, widen.visit_buffer(b))
                 for p, b in func.buffer_map)
    return dataclasses.replace(func, params=params, buffer_map=bmap, body=widen.visit(func.body))
