"""Lowering of TIR for codegen: blocks to plain loops, N-d buffer accesses to 1-d offsets.

`lower(func)` is the whole pipeline codegen expects; each step is also public:

- `lower_blocks`: every `BlockRealize` becomes its body with the block iter vars substituted by
  their bound values; `T.init()` runs under `if (v_r == dom.min && ...)` over the REDUCE iter
  vars (TVM's LowerInitBlock); a non-trivial predicate becomes an `IfThenElse`; `alloc_buffers`
  (the implicit "root" block's included) become `Allocate`s; `match_buffers` are substituted
  by accesses to their source region. Out: no Block/BlockRealize left.
- `plan_allocations`: each `Allocate` moves down to the innermost statement holding every access
  of its buffer (TVM's PlanAndUpdateBufferAllocationLocation) -- inside a parallel loop that
  makes it per-thread -- and shrinks to the region accessed there when that region has a
  constant size (CompactBufferAllocation): a cache_write tile becomes a small array LLVM keeps
  in registers.
- `unroll_loops`: `T.unroll` loops with a constant extent (up to UNROLL_LIMIT) are unrolled
  explicitly, each copy with the loop variable replaced by its value.
- `hoist_reduction_init`: `for k: { if (k == min) init; rest }` becomes
  `if (extent > 0) init[k:=min]; for k: rest` -- the same semantics (the init ran first in the
  first iteration), but the loop body is now branch-free, so LLVM keeps the accumulator in a
  register and can vectorize the reduction.
- `flatten_buffers`: every BufferLoad/BufferStore/Allocate/DeclBuffer uses a 1-d buffer that
  shares the original's `data` var; the index is the row-major (or strided) offset.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .bounds import check_bounds
from .bounds_instrument import enabled as bounds_checks_enabled, instrument_bounds
from .arith import Window, bound, subtract, union_windows
from .expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var, binop, const
from .function import PrimFunc
from .functor import Mutator, Simplifier, Visitor, simplify, substitute
from .loop_steps import unit_steps
from .nest_flat import nest_flat
from .split_index import SplitIndexFolder, split_parts
from .stmt import (
    Allocate, Block, BlockRealize, Buffer, BufferStore, For, ForKind, IfThenElse, IterType,
    MatchBufferRegion, SeqStmt, Stmt, seq,
)


def lower(func: PrimFunc) -> PrimFunc:
    """Blocks to loops, init hoisting, flattening and index folding: what codegen consumes."""
    func = lower_blocks(unit_steps(nest_flat(func)))
    name = str(dict(func.attrs).get("global_symbol") or "prim_func")
    check_bounds(func, name)
    if bounds_checks_enabled():
        func = instrument_bounds(func, name)
    func = plan_allocations(func)
    func = unroll_loops(func)
    func = hoist_reduction_init(func)
    # NOTE: flatten_buffers and then simplify, in one walk of the (unrolled, large) body
    return func.with_body(_FlattenSimplifier().visit(func.body))


# ---------------------------------------------------------------------------------------------
# Blocks


def _is_true(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value != 0


def _conjunction(terms: list[PrimExpr]) -> PrimExpr | None:
    out: PrimExpr | None = None
    for t in terms:
        out = t if out is None else BinOp(BinaryOp.AND, out, t)
    return out


class _BlockLowerer(Mutator):
    def __init__(self) -> None:
        self.loops: dict[Var, int] = {}  # loop var -> constant extent, loops from 0 around

    def visit_For(self, s: For) -> Stmt:
        if not (isinstance(s.min, IntImm) and s.min.value == 0 and isinstance(s.extent, IntImm)):
            return self.generic_visit(s)
        self.loops[s.loop_var] = s.extent.value
        try:
            return self.generic_visit(s)
        finally:
            del self.loops[s.loop_var]

    def visit_BlockRealize(self, br: BlockRealize) -> Stmt:
        stmt = self._lower_block(br.block, br.iter_values)
        pred = self.visit(br.predicate)
        return stmt if _is_true(pred) else IfThenElse(pred, stmt)

    def visit_Block(self, block: Block) -> Stmt:  # a bare block: no iter vars to bind
        return self._lower_block(block, ())

    def _lower_block(self, block: Block, values: tuple[PrimExpr, ...]) -> Stmt:
        if len(values) != len(block.iter_vars):
            raise ValueError(
                f"block {block.name!r} has {len(block.iter_vars)} iter vars but "
                f"{len(values)} bound values"
            )
        vmap = {iv.var: self.visit(v) for iv, v in zip(block.iter_vars, values)}
        parts = split_parts(vmap, self.loops)
        if parts:
            block = dataclasses.replace(block, body=SplitIndexFolder(parts).visit(block.body))
        body = self.visit(substitute(block.body, vmap))
        if block.init is not None:
            init = self.visit(substitute(block.init, vmap))
            terms = [
                binop(BinaryOp.EQ, vmap[iv.var], substitute(iv.dom.min, vmap))
                for iv in block.iter_vars
                if iv.iter_type is IterType.REDUCE
            ]
            cond = _conjunction(terms)
            body = seq([init if cond is None else IfThenElse(cond, init), body])
        if block.match_buffers:
            body = _substitute_match_buffers(body, block.match_buffers, vmap)
        for buf in reversed(block.alloc_buffers):
            body = Allocate(buf, body)
        return body


def _substitute_match_buffers(
    body: Stmt, matches: tuple[MatchBufferRegion, ...], vmap: dict[Var, PrimExpr]
) -> Stmt:
    """Accesses to a matched buffer become accesses to its source region (trailing dims align)."""
    table: dict[Buffer, tuple[Buffer, tuple[PrimExpr, ...]]] = {}
    for m in matches:
        src, region = m.source.buffer, m.source.region
        mins = tuple(substitute(r.min, vmap) for r in region)
        if src in table:  # a match of a match: compose the offsets
            src, base = table[src]
            lead = len(base) - len(mins)
            mins = base[:lead] + tuple(a + b for a, b in zip(base[lead:], mins))
        if m.buffer.ndim > len(mins):
            raise ValueError(f"match_buffer {m.buffer.name!r} has more dims than its source region")
        table[m.buffer] = (src, mins)
    body = _BufferRedirect(table).visit(body)
    return substitute(body, _matched_handles(matches, table)) if matches else body


def _matched_handles(matches: tuple[MatchBufferRegion, ...],
                     table: dict[Buffer, tuple[Buffer, tuple[PrimExpr, ...]]]
                     ) -> dict[Var, PrimExpr]:
    """What an opaque access's `A0.data` and `A0.elem_offset` stand for: the source's handle,
    and the flat offset of the region's first element in it."""
    out: dict[Var, PrimExpr] = {}
    for m in matches:
        src, mins = table[m.buffer]
        if isinstance(m.buffer.data, Var) and src.data is not None:
            out[m.buffer.data] = src.data
        off = m.buffer.elem_offset
        if isinstance(off, Var):
            out[off] = _cast(flat_index(src, mins), off.dtype)
    return out


class _BufferRedirect(Mutator):
    def __init__(self, table: dict[Buffer, tuple[Buffer, tuple[PrimExpr, ...]]]) -> None:
        self.table = table

    def _indices(self, buf: Buffer, idx: tuple[PrimExpr, ...]) -> tuple[Buffer, tuple]:
        src, mins = self.table[buf]
        lead = len(mins) - len(idx)
        return src, mins[:lead] + tuple(m + i for m, i in zip(mins[lead:], idx))

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if e.buffer not in self.table:
            return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)
        return BufferLoad(*self._indices(e.buffer, idx), e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        value, idx = self.visit(s.value), self.visit(s.indices)
        if s.buffer not in self.table:
            return dataclasses.replace(s, value=value, indices=idx)
        buf, new_idx = self._indices(s.buffer, idx)
        return BufferStore(buf, value, new_idx, s.span)


def lower_blocks(func: PrimFunc) -> PrimFunc:
    """`func` with every block lowered to plain statements (see the module docstring)."""
    return func.with_body(_BlockLowerer().visit(func.body))


# ---------------------------------------------------------------------------------------------
# Init hoisting


def _split_and(e: PrimExpr) -> list[PrimExpr]:
    if isinstance(e, BinOp) and e.op is BinaryOp.AND:
        return _split_and(e.a) + _split_and(e.b)
    return [e]


class _UsesVar(Visitor):
    def __init__(self, var: Var) -> None:
        self.var, self.found = var, False

    def visit_Var(self, v: Var) -> None:
        self.found = self.found or v is self.var


def _uses(node: Any, var: Var) -> bool:
    finder = _UsesVar(var)
    finder.visit(node)
    return finder.found


def _is_first_iter_test(term: PrimExpr, loop: For) -> bool:
    return (
        isinstance(term, BinOp)
        and term.op is BinaryOp.EQ
        and term.a is loop.loop_var
        and _same_value(simplify(term.b), simplify(loop.min))
    )


def _same_value(a: PrimExpr, b: PrimExpr) -> bool:
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return a is b or a == b


class _StmtMutator(Mutator):
    """A Mutator with visit methods for statements alone: it returns expressions as they are
    (walking them would rebuild nothing) -- the passes after unrolling meet big bodies."""

    def visit(self, node: Any) -> Any:
        if isinstance(node, PrimExpr):
            return node
        return Mutator.visit(self, node)


class _InitHoister(_StmtMutator):
    def visit_For(self, loop: For) -> Stmt:
        loop = Mutator.generic_visit(self, loop)
        stmts = list(loop.body.seq) if isinstance(loop.body, SeqStmt) else [loop.body]
        first = stmts[0]
        if len(stmts) < 2 or not isinstance(first, IfThenElse) or first.else_case is not None:
            return loop
        terms = _split_and(first.condition)
        mine = [t for t in terms if _is_first_iter_test(t, loop)]
        rest = [t for t in terms if not _is_first_iter_test(t, loop)]
        if not mine or any(_uses(t, loop.loop_var) for t in rest):
            return loop
        init = substitute(first.then_case, {loop.loop_var: loop.min})
        cond = _conjunction(rest)
        hoisted: Stmt = init if cond is None else IfThenElse(cond, init)
        extent = simplify(loop.extent)
        if not (isinstance(extent, IntImm) and extent.value > 0):
            hoisted = IfThenElse(binop(BinaryOp.GT, extent, const(0, extent.dtype)), hoisted)
        return seq([hoisted, dataclasses.replace(loop, body=seq(stmts[1:]))])


def hoist_reduction_init(func: PrimFunc) -> PrimFunc:
    """Moves `if (k == min) init` out of the front of loop `k` (see the module docstring)."""
    return func.with_body(_InitHoister().visit(func.body))


# ---------------------------------------------------------------------------------------------
# Flattening


def _index_dtype(exprs: tuple[PrimExpr, ...]) -> str:
    return "int64" if any(e.dtype == "int64" for e in exprs) else "int32"


def flat_index(buf: Buffer, indices: tuple[PrimExpr, ...]) -> PrimExpr:
    """The element offset of `buf[indices]`: strided if `buf.strides`, else row-major."""
    if len(indices) != buf.ndim:
        raise ValueError(f"buffer {buf.name!r} has {buf.ndim} dims but is indexed with "
                         f"{len(indices)} indices")
    dtype = _index_dtype(tuple(indices) + tuple(buf.shape) + tuple(buf.strides))
    cast = [i if i.dtype == dtype else _cast(i, dtype) for i in indices]
    if not cast:
        offset: PrimExpr = const(0, dtype)
    elif buf.strides:
        terms = [i * _cast(s, dtype) for i, s in zip(cast, buf.strides)]
        offset = terms[0]
        for t in terms[1:]:
            offset = offset + t
    else:  # Horner form: ((i0 * d1 + i1) * d2 + i2)
        offset = cast[0]
        for dim, i in zip(buf.shape[1:], cast[1:]):
            offset = offset * _cast(dim, dtype) + i
    if buf.elem_offset is not None:
        offset = offset + _cast(buf.elem_offset, dtype)
    return offset


def _cast(e: PrimExpr, dtype: str) -> PrimExpr:
    if e.dtype == dtype:
        return e
    if isinstance(e, IntImm):
        return IntImm(dtype, e.value)
    return e.astype(dtype)


def flat_size(buf: Buffer) -> PrimExpr:
    """Number of elements of `buf` (the product of its shape; 1 for a 0-d buffer)."""
    size: PrimExpr = const(1, "int64")
    for dim in buf.shape:
        size = size * _cast(dim, "int64")
    return simplify(size)


class _Flattener(Mutator):
    def __init__(self) -> None:
        self.flat: dict[Buffer, Buffer] = {}

    def visit_buffer(self, buf: Buffer) -> Buffer:
        if buf.ndim == 1 and not buf.strides and buf.elem_offset is None:
            return buf
        if buf not in self.flat:
            self.flat[buf] = Buffer(buf.name, (flat_size(buf),), buf.dtype, buf.data,
                                    scope=buf.scope, span=buf.span)
        return self.flat[buf]

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        return BufferLoad(self.visit_buffer(e.buffer), (flat_index(e.buffer, idx),), e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        idx = self.visit(s.indices)
        return BufferStore(self.visit_buffer(s.buffer), self.visit(s.value),
                           (flat_index(s.buffer, idx),), s.span)


def flatten_buffers(func: PrimFunc) -> PrimFunc:
    """Every buffer access in the body becomes a 1-d access; `buffer_map` keeps the N-d view."""
    return func.with_body(_Flattener().visit(func.body))


class _FlattenSimplifier(Simplifier):
    """`simplify(flatten_buffers(body))` in one walk. The same tree: the simplifier works
    bottom-up, so where the flattener puts a new offset over its (flattened) indices, the
    offset is simplified over the indices simplified -- what the second walk met there."""

    def __init__(self) -> None:
        self.flat: dict[Buffer, Buffer] = {}
        self._fixed: dict[int, PrimExpr] | None = None  # simplified indices inside an offset

    visit_buffer = _Flattener.visit_buffer

    def visit(self, node: Any) -> Any:
        if self._fixed is not None and self._fixed.get(id(node)) is node:
            return node  # NOTE: already simplified: not simplified twice
        return Simplifier.visit(self, node)

    def _offset(self, buf: Buffer, indices: tuple[PrimExpr, ...]) -> PrimExpr:
        idx = self.visit(indices)
        offset = flat_index(buf, idx)
        saved, self._fixed = self._fixed, {id(i): i for i in idx}
        try:
            return self.visit(offset)
        finally:
            self._fixed = saved

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        offset = self._offset(e.buffer, e.indices)
        return BufferLoad(self.visit_buffer(e.buffer), (offset,), e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        offset = self._offset(s.buffer, s.indices)
        return BufferStore(self.visit_buffer(s.buffer), self.visit(s.value), (offset,), s.span)



# ---------------------------------------------------------------------------------------------
# Allocation placement and compaction

UNROLL_LIMIT = 64


class _Accesses(Visitor):
    """Every access of `buf`, with the loops (inside the visited stmt) around it."""

    def __init__(self, buf: Buffer) -> None:
        self.buf = buf
        self.loops: list[For] = []
        self.found: list[tuple[tuple[PrimExpr, ...], list[For]]] = []
        self.by_handle = False  # its data pointer is passed on (a packed or extern call)

    def visit_Var(self, v: Var) -> None:
        if v is self.buf.data:
            self.by_handle = True

    def visit_For(self, s: For) -> None:
        self.visit(s.min)
        self.visit(s.extent)
        self.loops.append(s)
        self.visit(s.body)
        self.loops.pop()

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        if e.buffer is self.buf:
            self.found.append((e.indices, list(self.loops)))
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        if s.buffer is self.buf:
            self.found.append((s.indices, list(self.loops)))
        self.generic_visit(s)


def _uses_buffer(s: Stmt, buf: Buffer) -> bool:
    acc = _Accesses(buf)
    acc.visit(s)
    return bool(acc.found) or acc.by_handle


def _sink(buf: Buffer, s: Stmt, threads: tuple[For, ...] = (),
          units: tuple[For, ...] = ()) -> Stmt:
    """`Allocate(buf, s)` with the allocation moved to the innermost stmt holding every use;
    `threads` are the threadIdx loops it moved past (shared memory spans all of them), `units`
    the loops of extent 1 (their var is their start: `i_1 * 8` and `0` are the same window)."""
    if isinstance(s, For):
        if (s.thread_tag or "").startswith("threadIdx"):
            threads += (s,)
        if isinstance(s.extent, IntImm) and s.extent.value == 1:
            units += (s,)
        return dataclasses.replace(s, body=_sink(buf, s.body, threads, units))
    if isinstance(s, SeqStmt):
        users = [k for k, c in enumerate(s.seq) if _uses_buffer(c, buf)]
        if len(users) == 1:
            k = users[0]
            return SeqStmt(s.seq[:k] + (_sink(buf, s.seq[k], threads, units),)
                           + s.seq[k + 1:], s.span)
    return _compact(buf, s, (threads if buf.scope.startswith("shared") else ()) + units)


def _compact(buf: Buffer, s: Stmt, relaxed: tuple[For, ...] = ()) -> Stmt:
    """`Allocate` of `buf` over `s`, shrunk to the window `s` touches when that is constant
    (over every value of the `relaxed` outer loops too)."""
    acc = _Accesses(buf)
    acc.visit(s)
    if acc.by_handle:  # whoever gets the pointer may touch any element: keep it whole
        return Allocate(buf, s)
    windows: list[list[Window | None]] = [[] for _ in buf.shape]
    for idx, loops in acc.found:
        ranges = {lp.loop_var: (lp.min, lp.extent.value) for lp in (*relaxed, *loops)
                  if isinstance(lp.extent, IntImm)}
        for d, i in enumerate(idx):
            windows[d].append(bound(i, ranges))
    mins: list[PrimExpr] = []
    shape: list[PrimExpr] = []
    for ws, dim in zip(windows, buf.shape):
        joined = union_windows(ws)
        if joined is None:
            return Allocate(buf, s)
        mins.append(joined[0])
        shape.append(IntImm(dim.dtype, joined[1]))
    if all(isinstance(d, IntImm) and d.value <= n.value for d, n in zip(buf.shape, shape)):
        return Allocate(buf, s)
    new = dataclasses.replace(buf, shape=tuple(shape), data=Var(buf.name, "handle"))
    return Allocate(new, _Rebase(buf, new, mins).visit(s))


class _Rebase(Mutator):
    def __init__(self, old: Buffer, new: Buffer, mins: list[PrimExpr]) -> None:
        self.old, self.new, self.mins = old, new, mins

    def _idx(self, idx: tuple[PrimExpr, ...]) -> tuple[PrimExpr, ...]:
        return tuple(subtract(i, m if m.dtype == i.dtype else _cast(m, i.dtype))
                     for i, m in zip(idx, self.mins))

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if e.buffer is self.old:
            return BufferLoad(self.new, self._idx(idx), e.span)
        return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        s = Mutator.generic_visit(self, s)
        if s.buffer is self.old:
            return BufferStore(self.new, s.value, self._idx(s.indices), s.span)
        return s


class _AllocPlanner(_StmtMutator):
    def visit_Allocate(self, s: Allocate) -> Stmt:
        body = self.visit(s.body)
        if s.buffer.strides or s.buffer.elem_offset is not None:
            return body if body is s.body else dataclasses.replace(s, body=body)
        return _sink(s.buffer, body)


def plan_allocations(func: PrimFunc) -> PrimFunc:
    """Moves and compacts allocations (see the module docstring). In: no blocks."""
    return func.with_body(_AllocPlanner().visit(func.body))


class _Unroller(_StmtMutator):
    def visit_For(self, loop: For) -> Stmt:
        loop = Mutator.generic_visit(self, loop)
        ext, lo = simplify(loop.extent), simplify(loop.min)
        if (loop.kind is not ForKind.UNROLLED or not isinstance(ext, IntImm)
                or not isinstance(lo, IntImm) or ext.value > UNROLL_LIMIT):
            return loop
        dtype = loop.loop_var.dtype
        return seq([substitute(loop.body, {loop.loop_var: IntImm(dtype, lo.value + k)})
                    for k in range(ext.value)])


def unroll_loops(func: PrimFunc) -> PrimFunc:
    """Unrolls constant `T.unroll` loops explicitly (see the module docstring)."""
    return func.with_body(_Unroller().visit(func.body))
