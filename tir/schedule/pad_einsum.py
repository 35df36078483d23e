"""`pad_einsum`: an einsum-like block's iteration space rounded up to multiples of `padding`,
as TVM 0.27 does it:

    for i, j, k in T.grid(128, n, 128): C[i, j] += A[i, k] * B[j, k]
        pad_einsum(C, [32, 32, 32])
    B_pad[v0, v1] = T.if_then_else(v0 < n, B[v0, v1], 0)      block "B_pad", padded extents
    for i, j, k in T.grid(128, (n + 31) // 32 * 32, 128): C_pad[i, j] += A[i, k] * B_pad[j, k]
    C[v0, v1] = C_pad[v0, v1]                                 block "C_pad", C's own extents

Every buffer the block accesses along a padded iter var gets a `<name>_pad` copy: one it reads
is filled (zeros outside) by a new block just before the einsum, one it writes is copied back
by a new block just after it. Extents may be symbolic (`n` becomes `(n + 31) // 32 * 32`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, Call, IntImm, PrimExpr, Var, const
from ..functor import simplify
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, Range, Stmt, seq,
)
from . import tree
from .analysis import accesses
from .buffer_prims import _SwapBuffer
from .state import Ctx, ScheduleError
from .trace import BlockRV


def _padded(ext: PrimExpr, factor: int) -> PrimExpr:
    """`ext` rounded up to a multiple of `factor` (folded when it is a constant)."""
    value = simplify(ext)
    if factor == 1:
        return ext
    if isinstance(value, IntImm):
        return IntImm(value.dtype, -(-value.value // factor) * factor)
    k = lambda v: IntImm(ext.dtype, v)  # noqa: E731
    return BinOp(BinaryOp.MUL, BinOp(BinaryOp.FLOORDIV, BinOp(BinaryOp.ADD, ext,
                                                              k(factor - 1)), k(factor)),
                 k(factor))


def _same(a: Any, b: Any) -> bool:
    from ...ir.structural import structural_equal  # a lazy import: ir sits above tir

    return structural_equal(simplify(a), simplify(b))


def _new_extents(br: BlockRealize, path: tree.Path, padding: list[int]) -> dict[Var, PrimExpr]:
    """Iter var -> padded extent, for those that grow; each must be bound to its own loop."""
    name = br.block.name
    loops = {s.loop_var: s for s in path if isinstance(s, For)}
    out = {}
    for iv, value, factor in zip(br.block.iter_vars, br.iter_values, padding):
        lp = loops.get(value) if isinstance(value, Var) else None
        if lp is None or not _same(lp.extent, iv.dom.extent):
            raise ScheduleError(f"pad_einsum: block {name!r} must bind iter var "
                                f"{iv.var.name!r} to a loop of its whole extent")
        new = _padded(iv.dom.extent, int(factor))
        if not _same(new, iv.dom.extent):
            out[iv.var] = new
    return out


def _pad_shape(buf: Buffer, idx: tuple[PrimExpr, ...], grow: dict[Var, PrimExpr],
               block: str) -> tuple[PrimExpr, ...] | None:
    """`buf`'s padded shape, or None when no dim of it grows."""
    if not any(isinstance(i, Var) and i in grow for i in idx):
        return None
    shape = []
    for i, dim in zip(idx, buf.shape):
        if not isinstance(i, Var):
            raise ScheduleError(f"pad_einsum: block {block!r} must index {buf.name!r} by its "
                                f"iter vars alone")
        new = grow.get(i, dim)
        value = simplify(new)
        shape.append(IntImm(value.dtype, value.value) if isinstance(value, IntImm) else new)
    return tuple(shape)


def _loop_extent(dim: PrimExpr) -> PrimExpr:
    value = simplify(dim)
    return IntImm("int32", value.value) if isinstance(value, IntImm) else dim


def _copy_block(name: str, shape: tuple[PrimExpr, ...], body_of: Any) -> Stmt:
    """`for i0, i1, ...: block name: v0, v1, ... = remap(S...); body_of(vars)`."""
    exts = [_loop_extent(d) for d in shape]
    vs = [Var(f"v{d}", e.dtype) for d, e in enumerate(exts)]
    loops = [Var(f"i{d}", e.dtype) for d, e in enumerate(exts)]
    ivs = tuple(IterVar(v, Range(IntImm(e.dtype, 0), e), IterType.SPATIAL)
                for v, e in zip(vs, exts))
    node: Stmt = BlockRealize(tuple(loops), IntImm("bool", 1), Block(name, ivs, body_of(vs)))
    for lv, e in reversed(list(zip(loops, exts))):
        node = For(lv, IntImm(e.dtype, 0), e, ForKind.SERIAL, node)
    return node


def _fill(old: Buffer, new: Buffer) -> Stmt:
    def body(vs: list[Var]) -> Stmt:
        conds = [BinOp(BinaryOp.LT, v, _loop_extent(od)) for v, od, nd
                 in zip(vs, old.shape, new.shape) if not _same(od, nd)]
        cond = conds[0]
        for c in conds[1:]:
            cond = BinOp(BinaryOp.AND, cond, c)
        value = Call(new.dtype, "tir.if_then_else",
                     (cond, BufferLoad(old, tuple(vs)), const(0, new.dtype)))
        return BufferStore(new, value, tuple(vs))
    return _copy_block(new.name, new.shape, body)


def _copy_back(old: Buffer, new: Buffer) -> Stmt:
    return _copy_block(new.name, old.shape,
                       lambda vs: BufferStore(old, BufferLoad(new, tuple(vs)), tuple(vs)))


def _grow_nest(nest: Stmt, br: BlockRealize, grow: dict[Var, PrimExpr]) -> Stmt:
    """The einsum's nest with its loops and iter var domains padded."""
    path = tree.find(nest, lambda s: s is br)
    assert path is not None
    ivs = tuple(dataclasses.replace(iv, dom=dataclasses.replace(iv.dom, extent=grow[iv.var]))
                if iv.var in grow else iv for iv in br.block.iter_vars)
    by_loop = {v: grow[iv.var] for iv, v in zip(br.block.iter_vars, br.iter_values)
               if iv.var in grow}
    node: Stmt = dataclasses.replace(br, block=dataclasses.replace(br.block, iter_vars=ivs))
    for k in range(len(path) - 2, -1, -1):
        parent = path[k]
        if isinstance(parent, For) and parent.loop_var in by_loop:
            parent = dataclasses.replace(parent, extent=by_loop[parent.loop_var])
        node = tree._replace_child(parent, path[k + 1], node)  # type: ignore[assignment]
    return node


def pad_einsum(ctx: Ctx, rv: BlockRV, padding: list[int]) -> tuple[Any, None]:
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    if len(padding) != len(br.block.iter_vars) or any(int(p) <= 0 for p in padding):
        raise ScheduleError(f"pad_einsum: block {name!r} has {len(br.block.iter_vars)} iter "
                            f"vars; padding {list(padding)} must give a positive factor for each")
    grow = _new_extents(br, path, [int(p) for p in padding])
    if not grow:
        raise ScheduleError(f"pad_einsum: block {name!r} is already padded to {list(padding)}")
    reads, writes = accesses(br.block)
    written = {id(b) for b, _ in writes}
    swaps: dict[Buffer, Buffer] = {}
    fills, backs = [], []
    for buf, idx in [r for r in reads if id(r[0]) not in written] + writes:
        if buf in swaps:
            continue
        shape = _pad_shape(buf, idx, grow, name)
        if shape is None:
            continue
        new = dataclasses.replace(buf, name=f"{buf.name}_pad", shape=shape,
                                  data=Var(f"{buf.name}_pad", "handle"))
        swaps[buf] = new
        (backs if id(buf) in written else fills).append((buf, new))
    top = tree.exclusive_top(path)
    swapped = _SwapBuffer(swaps).visit(path[top])
    new_br = tree.find(swapped, lambda s: isinstance(s, BlockRealize) and s.block.name == name)
    assert new_br is not None
    nest = _grow_nest(swapped, new_br[-1], grow)  # type: ignore[arg-type]
    staged = seq([_fill(o, n) for o, n in fills] + [nest] + [_copy_back(o, n) for o, n in backs])
    func = ctx.func.with_body(tree.replace(path[:top + 1], staged))
    for _, new in fills + backs:
        func = tree.add_root_alloc(func, new)
    return func, None
