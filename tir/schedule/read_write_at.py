"""`read_at` / `write_at`: stage the region of a buffer a block touches during one iteration of
a loop through a cache, by one "auto_copy" block just before (after) the statement of the
loop's body that holds the block, as TVM does for GPU shared memory:

    for k0: with block("A_shared"): v0 = by; v1 = k0; T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(64, 8): A_shared[v0*64 + ax0, v1*8 + ax1] = A[...]
            ... the block reads A_shared ...

The region is bounded as compute_at bounds it; for shared memory every thread's (and virtual
thread's) part counts.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import simplify, substitute
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, Range, SeqStmt, Stmt,
    seq,
)
from . import tree
from .analysis import region_under, thread_ranges
from .buffer_prims import _SwapBuffer
from .layout import buffer_of
from .state import Ctx, ScheduleError
from .trace import BlockRV, LoopRV


def _relaxed(lpath: tree.Path, buf: Buffer) -> dict[Var, tuple[PrimExpr, int]]:
    out = thread_ranges(lpath, buf)
    if buf.scope.startswith("shared"):  # virtual threads share the block's memory too
        out.update({s.loop_var: (s.min, s.extent.value) for s in lpath
                    if isinstance(s, For) and (s.thread_tag or "").startswith("vthread")
                    and isinstance(s.extent, IntImm)})
    return out


def stage_at(ctx: Ctx, loop_rv: LoopRV, rv: BlockRV, index: int, scope: str, read: bool
             ) -> tuple[Any, BlockRV]:
    what = "read_at" if read else "write_at"
    buf = buffer_of(ctx, rv, "read" if read else "write", index, what)
    bpath, lpath = ctx.block_path(rv), ctx.loop_path(loop_rv)
    loop: For = lpath[-1]  # type: ignore[assignment]
    br: BlockRealize = bpath[-1]  # type: ignore[assignment]
    if not any(s is loop for s in bpath):
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} is not above block "
                            f"{br.block.name!r}")
    cname = f"{buf.name}_{scope.replace('.', '_')}"
    cache = Buffer(cname, buf.shape, buf.dtype, Var(cname, "handle"), scope=scope)
    region = region_under([bpath], loop, buf, reads=read, relaxed=_relaxed(lpath, cache))
    outer = [s for s in lpath if isinstance(s, For)]
    used: list[For] = []  # in the order the region's dims name them, as TVM numbers them
    for lo, _ in region:
        for v in free_vars(lo):
            lp = next((x for x in outer if x.loop_var is v), None)
            if lp is not None and lp not in used:
                used.append(lp)
    ivs = [IterVar(Var(f"v{k}", lp.loop_var.dtype), Range(IntImm(lp.loop_var.dtype, 0),
                                                          lp.extent), IterType.SPATIAL)
           for k, lp in enumerate(used)]
    to_iv = {lp.loop_var: iv.var for lp, iv in zip(used, ivs)}
    axes = [Var(f"ax{d}", "int32") for d in range(len(region))]
    idx = tuple(simplify(substitute(lo, to_iv)) + ax for (lo, _), ax in zip(region, axes))
    src, dst = (buf, cache) if read else (cache, buf)
    body: Stmt = BufferStore(dst, BufferLoad(src, idx), idx)
    for ax, (_, ext) in reversed(list(zip(axes, region))):
        body = For(ax, IntImm("int32", 0), IntImm("int32", int(simplify(ext).value)),
                   ForKind.SERIAL, body)
    stage = BlockRealize(tuple(lp.loop_var for lp in used), IntImm("bool", 1),
                         Block(cname, tuple(ivs), body, annotations=(("auto_copy", True),)))
    swapped = dataclasses.replace(br, block=_SwapBuffer({buf: cache}).visit(br.block))
    new_body = tree.replace(bpath, swapped)
    lpath2 = tree.loop_path(new_body, loop.loop_var)
    lp2: For = lpath2[-1]  # type: ignore[index, assignment]
    items = list(lp2.body.seq) if isinstance(lp2.body, SeqStmt) else [lp2.body]
    at = next(k for k, item in enumerate(items)  # the statement holding the block
              if tree.block_path(item, br.block.name) is not None)
    items.insert(at if read else at + 1, stage)
    new_body = tree.replace(lpath2, dataclasses.replace(lp2, body=seq(items)))  # type: ignore
    func = tree.add_root_alloc(ctx.func.with_body(new_body), cache)
    return func, BlockRV(cname, ctx.func_name)
