"""Barriers for shared memory (TVM's `ThreadSync("shared")`): `__syncthreads()` where the
threads of a block could otherwise see each other's shared-memory accesses out of order.

A schedule that stages tiles in shared memory (`cache_read(..., "shared")`, `compute_at`, a
cooperative fetch bound to `threadIdx`) writes the buffer in one statement and reads it, from
other threads, in a later one. CUDA needs a barrier between the two (read after write) and, in
a loop, another before the next iteration overwrites what this one read (write after read).
TVM inserts these barriers when it lowers for a GPU, so MLC-style schedules never write them;
`insert_barriers` does the same on a lowered kernel, before CUDA codegen.

The planner walks each statement list remembering which shared buffers were read and written
since the last barrier, and puts a barrier before a statement that reads a buffer written since
(RAW) or writes one read since (WAR). A statement holding a hazard as a whole gets the barrier
in front of it, not deep inside, so a compute loop reading a freshly fetched tile costs one
barrier, not one per iteration. A loop is planned with what its own body left pending at the end
of an iteration, so a hazard with the previous iteration puts the barrier at the top of the body.
Write-after-write is not a hazard here: cooperative fetches write disjoint elements.

Index analysis (TVM proves some accesses touch only the thread's own elements) is not done, so
a barrier may stand where TVM has none; that costs time, never correctness. Barriers go only
where every thread of the block arrives: never inside a conditional, a loop whose bounds depend
on the thread, or a thread loop shorter than the launch (it runs under an `if`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .arith import int_value
from .expr import BufferLoad, Call, PrimExpr, StringImm, Var
from .function import free_vars
from .functor import Visitor
from .stmt import (
    Allocate, BufferStore, DeclBuffer, Evaluate, For, ForKind, LetStmt, SeqStmt, Stmt, seq,
)


@dataclass(frozen=True)
class Pending:
    """Shared buffers (by data var) read and written since the last barrier."""

    reads: frozenset[Var] = frozenset()
    writes: frozenset[Var] = frozenset()

    def __or__(self, other: "Pending") -> "Pending":
        return Pending(self.reads | other.reads, self.writes | other.writes)

    def conflicts(self, later: "Pending") -> bool:
        return bool(self.writes & later.reads or self.reads & later.writes)


NOTHING = Pending()


def barrier() -> Stmt:
    return Evaluate(Call("int32", "tir.tvm_storage_sync", (StringImm("shared"),)))


def is_barrier(s: Stmt) -> bool:
    return (isinstance(s, Evaluate) and isinstance(s.value, Call)
            and s.value.op in ("tir.tvm_storage_sync", "tvm_storage_sync")
            and bool(s.value.args) and isinstance(s.value.args[0], StringImm)
            and s.value.args[0].value == "shared")


class _SharedAccesses(Visitor):
    """Shared buffers read and written anywhere in a statement. Barriers inside it are not
    counted: a statement the planner cannot enter is taken as one conservative access."""

    def __init__(self) -> None:
        self.reads: set[Var] = set()
        self.writes: set[Var] = set()

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        if e.buffer.scope.startswith("shared") and e.buffer.data is not None:
            self.reads.add(e.buffer.data)
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        if s.buffer.scope.startswith("shared") and s.buffer.data is not None:
            self.writes.add(s.buffer.data)
        self.generic_visit(s)


def _accesses(s: Stmt) -> Pending:
    acc = _SharedAccesses()
    acc.visit(s)
    return Pending(frozenset(acc.reads), frozenset(acc.writes))


class _Planner:
    def __init__(self, launch: dict[str, PrimExpr]) -> None:
        self.launch = launch  # thread tag -> launch extent (a shorter thread loop is guarded)
        self.thread_vars: set[Var] = set()

    def uniform(self, *exprs: PrimExpr) -> bool:
        return not any(v in self.thread_vars for e in exprs for v in free_vars(e))

    def transparent(self, s: Stmt) -> bool:
        """Can a barrier go inside `s` (every thread runs all of it, the same number of times)?"""
        if isinstance(s, (SeqStmt, Allocate, DeclBuffer)):
            return True
        if isinstance(s, LetStmt):
            return self.uniform(s.value)
        if isinstance(s, For):
            if s.kind is ForKind.THREAD_BINDING:
                full = self.launch.get(s.thread_tag or "", s.extent)
                return s.extent == full or int_value(s.extent) == int_value(full) is not None
            return self.uniform(s.min, s.extent)
        return False

    def stmt(self, s: Stmt, pending: Pending) -> tuple[Stmt, Pending]:
        """A transparent `s` with barriers inside, and what is pending after it."""
        if isinstance(s, SeqStmt):
            items, pending = self.items(list(s.seq), pending)
            return seq(items), pending
        if not isinstance(s, For) or s.kind is ForKind.THREAD_BINDING:
            if isinstance(s, For) and (s.thread_tag or "").startswith("threadIdx"):
                self.thread_vars.add(s.loop_var)
            body, pending = self.body(s.body, pending)  # type: ignore[attr-defined]
            return dataclasses.replace(s, body=body), pending
        # Plan the body with what the previous iteration left pending, until that settles.
        entry = pending
        for _ in range(3):
            body, after = self.body(s.body, entry)
            if after | entry == entry:
                break
            entry = entry | after
        return dataclasses.replace(s, body=body), pending | after

    def body(self, s: Stmt, pending: Pending) -> tuple[Stmt, Pending]:
        items, pending = self.items(list(s.seq) if isinstance(s, SeqStmt) else [s], pending)
        return seq(items), pending

    def items(self, items: list[Stmt], pending: Pending) -> tuple[list[Stmt], Pending]:
        out: list[Stmt] = []
        for item in items:
            if is_barrier(item):
                out.append(item)
                pending = NOTHING
                continue
            acc = _accesses(item)
            if not (acc.reads or acc.writes):
                out.append(item)
                continue
            if pending.conflicts(acc):  # the hazard is with the item as a whole: barrier first
                out.append(barrier())
                pending = NOTHING
            if self.transparent(item):
                item, pending = self.stmt(item, pending)
            else:
                pending = pending | acc
            out.append(item)
        return out, pending


def insert_barriers(kernel: Stmt, launch: dict[str, PrimExpr]) -> Stmt:
    """`kernel` (one launch's lowered loop nest) with the shared-memory barriers it needs."""
    if not (_accesses(kernel).reads or _accesses(kernel).writes):
        return kernel
    planner = _Planner(launch)
    if not planner.transparent(kernel):
        return kernel
    return planner.stmt(kernel, NOTHING)[0]
