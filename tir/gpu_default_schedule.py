"""A default GPU schedule for prim_funcs that bind no loop to a GPU thread (dlight's fallback).

`default_gpu_schedule(func)` rewrites every top-level loop nest of the function (the statements
of its root block) into one kernel launch: the nest's spatial loops are fused into one index,
split by the thread count and bound to `blockIdx.x` / `threadIdx.x`, with a guard for the tail:

    for i, j, k in T.grid(128, 64, 32):      for bx in T.thread_binding(32, "blockIdx.x"):
        block(i, j: spatial, k: reduce)  ->      for tx in T.thread_binding(256, "threadIdx.x"):
                                                     if bx * 256 + tx < 8192:
                                                         for k in range(32):
                                                             block(i := f // 64, j := f % 64, k)

A loop is spatial when every block under it uses its variable only in bindings of SPATIAL
iter vars. In a perfect nest around one block the loops may be reordered (block semantics
allow it), so spatial loops move outside reduction loops; otherwise only the leading spatial
loops are fused. A nest without spatial loops runs on one thread. Functions that already bind
a loop are returned unchanged: the CUDA codegen then reports any loop left unbound.
"""

from __future__ import annotations

from dataclasses import replace

from .expr import BinaryOp, BinOp, Cast, IntImm, PrimExpr, Var
from .function import PrimFunc
from .functor import Visitor, simplify, substitute
from .stmt import BlockRealize, For, ForKind, IfThenElse, IterType, SeqStmt, Stmt

DEFAULT_THREADS = 256  # per block: dlight uses up to 1024; 256 keeps more blocks resident


class _Facts(Visitor):
    """Which loop variables feed non-spatial block bindings; whether any loop is thread-bound."""

    def __init__(self) -> None:
        self.non_spatial: set[Var] = set()
        self.bound = False
        self._vars: set[Var] = set()

    def visit_For(self, loop: For) -> None:
        self.bound = self.bound or loop.kind is ForKind.THREAD_BINDING
        self.visit(loop.body)

    def visit_BlockRealize(self, br: BlockRealize) -> None:
        for iv, value in zip(br.block.iter_vars, br.iter_values):
            if iv.iter_type is not IterType.SPATIAL:
                self.non_spatial.update(_vars_of(value))
        self.visit(br.block)


def _vars_of(e: PrimExpr) -> set[Var]:
    found: set[Var] = set()

    class _Collect(Visitor):
        def visit_Var(self, v: Var) -> None:
            found.add(v)

    _Collect().visit(e)
    return found


def has_thread_binding(func: PrimFunc) -> bool:
    facts = _Facts()
    facts.visit(func.body)
    return facts.bound


def default_gpu_schedule(func: PrimFunc, threads: int = DEFAULT_THREADS) -> PrimFunc:
    """`func` with each top-level loop nest bound to blockIdx.x/threadIdx.x (see module doc)."""
    if has_thread_binding(func):
        return func
    body = func.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars:  # the implicit root block
        root = body.block
        new_root = replace(root, body=_schedule_seq(root.body, threads))
        return func.with_body(replace(body, block=new_root))
    return func.with_body(_schedule_seq(body, threads))


def _schedule_seq(stmt: Stmt, threads: int) -> Stmt:
    items = stmt.seq if isinstance(stmt, SeqStmt) else (stmt,)
    out = tuple(_schedule_nest(s, threads) for s in items)
    return SeqStmt(out) if isinstance(stmt, SeqStmt) else out[0]


def _perfect_nest(stmt: Stmt) -> tuple[list[For], Stmt]:
    loops: list[For] = []
    while isinstance(stmt, For) and stmt.kind is not ForKind.THREAD_BINDING:
        loops.append(stmt)
        stmt = stmt.body
    return loops, stmt


def _schedule_nest(stmt: Stmt, threads: int) -> Stmt:
    loops, inner = _perfect_nest(stmt)
    facts = _Facts()
    facts.visit(stmt)
    if isinstance(inner, BlockRealize):  # a perfect nest: reorder spatial loops outside
        spatial = [lp for lp in loops if lp.loop_var not in facts.non_spatial]
        rest = [lp for lp in loops if lp.loop_var in facts.non_spatial]
    else:  # NOTE: statements between loops pin the order; fuse the leading spatial run only
        n = next((i for i, lp in enumerate(loops) if lp.loop_var in facts.non_spatial),
                 len(loops))
        spatial, rest = loops[:n], loops[n:]
    for lp in reversed(rest):
        inner = replace(lp, body=inner)
    return _bind_fused(spatial, inner, threads)


def _index_dtype(loops: list[For]) -> str:
    dtypes = [lp.loop_var.dtype for lp in loops] + [lp.extent.dtype for lp in loops]
    return "int64" if "int64" in dtypes else "int32"


def _as(e: PrimExpr, dtype: str) -> PrimExpr:
    if e.dtype == dtype:
        return e
    return IntImm(dtype, e.value) if isinstance(e, IntImm) else Cast(dtype, e)


def _is_one(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def _bind_fused(spatial: list[For], inner: Stmt, threads: int) -> Stmt:
    """Fuse `spatial` (outermost first) into bx * threads + tx, guarded, around `inner`."""
    dtype = _index_dtype(spatial)
    total: PrimExpr = IntImm(dtype, 1)
    for lp in spatial:
        total = total * _as(lp.extent, dtype)
    total = simplify(total)
    if isinstance(total, IntImm) and total.value < threads:
        threads = max(1, total.value)  # a small nest: one block, no idle threads
    bx, tx = Var("blockIdx_x", dtype), Var("threadIdx_x", dtype)
    fused = simplify(bx * IntImm(dtype, threads) + tx)
    vmap: dict[Var, PrimExpr] = {}
    stride: PrimExpr = IntImm(dtype, 1)
    real = [lp for lp in spatial if not _is_one(lp.extent)]
    for lp in reversed(spatial):  # innermost loop varies fastest, as in the original order
        extent = _as(lp.extent, dtype)
        value: PrimExpr = BinOp(BinaryOp.FLOORDIV, fused, stride)
        if _is_one(lp.extent):
            value = IntImm(dtype, 0)
        elif lp is not real[0]:  # NOTE: the guard keeps the outermost one below its extent
            value = BinOp(BinaryOp.FLOORMOD, value, extent)
        value = simplify(value + _as(lp.min, dtype))
        vmap[lp.loop_var] = _as(value, lp.loop_var.dtype)
        stride = simplify(stride * extent)
    body = substitute(inner, vmap)
    exact = isinstance(total, IntImm) and total.value % threads == 0
    if not exact:
        body = IfThenElse(BinOp(BinaryOp.LT, fused, total), body)
    blocks = simplify(BinOp(BinaryOp.FLOORDIV, total + IntImm(dtype, threads - 1),
                            IntImm(dtype, threads)))
    body = For(tx, IntImm(dtype, 0), IntImm(dtype, threads), ForKind.THREAD_BINDING, body,
               thread_tag="threadIdx.x")
    return For(bx, IntImm(dtype, 0), blocks, ForKind.THREAD_BINDING, body,
               thread_tag="blockIdx.x")


