"""Primitives that change a buffer or an annotation, not the loop structure: set_scope,
unsafe_set_dtype, storage_align, unannotate, add_unit_loop, annotate_buffer_access.

Each takes a `Ctx` and returns `(new PrimFunc, outputs)`; preconditions raise ScheduleError.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..dtype import check_dtype
from ..expr import BufferLoad, Cast, IntImm, PrimExpr, Var, const
from ..functor import Mutator, simplify
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For, ForKind, Stmt
from . import tree
from .analysis import read_buffers, written_buffers
from .state import Ctx, ScheduleError
from .trace import BlockRV


class _SwapBuffer(Mutator):
    """Every use of the buffers in `swap` (loads, stores, allocations, regions) uses their
    replacement; with `cast`, stored values are cast to the new dtype and loads cast back."""

    def __init__(self, swap: dict[Buffer, Buffer], cast: bool = False) -> None:
        self.swap, self.cast = swap, cast

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        return self.swap.get(buf, buf)

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        new = self.generic_visit(e)
        if self.cast and e.buffer in self.swap:
            return Cast(e.buffer.dtype, new)
        return new

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        new = self.generic_visit(s)
        if self.cast and s.buffer in self.swap:
            return dataclasses.replace(new, value=Cast(new.buffer.dtype, new.value))
        return new


def _rewrite_buffer(body: Stmt, old: Buffer, new: Buffer, cast: bool = False, **change: Any
                    ) -> Stmt:
    """`body` with `old` replaced by `new`, and every buffer matched to a region of `old`
    (`T.match_buffer(old[...])`) changed by `change` the same way."""
    swap = {old: new}
    for path in tree.walk(body):
        node = path[-1]
        if isinstance(node, Block):
            for m in node.match_buffers:
                if m.source.buffer is old:
                    swap[m.buffer] = dataclasses.replace(m.buffer, **change)
    return _SwapBuffer(swap, cast).visit(body)


def _written(ctx: Ctx, rv: BlockRV, index: int, what: str) -> tuple[BlockRealize, Buffer]:
    br = ctx.block(rv)
    found = written_buffers(br.block)
    if not 0 <= index < len(found):
        raise ScheduleError(f"{what}: block {br.block.name!r} writes {len(found)} buffers; "
                            f"buffer_index {index} is out of range")
    return br, found[index]


def _check_allocated(ctx: Ctx, buf: Buffer, block: str, what: str) -> None:
    if any(b is buf for _, b in ctx.func.buffer_map):
        raise ScheduleError(f"{what}: buffer {buf.name!r} written by block {block!r} is a "
                            f"parameter of the function; only allocated buffers can change")


def set_scope(ctx: Ctx, rv: BlockRV, index: int, scope: str) -> tuple[Any, None]:
    br, buf = _written(ctx, rv, index, "set_scope")
    _check_allocated(ctx, buf, br.block.name, "set_scope")
    if not _valid_scope(scope):
        raise ScheduleError(f"set_scope: {scope!r} is not a storage scope (expected global, "
                            f"shared, shared.dyn, local, warp, wmma.*, ...)")
    if buf.scope == scope:
        return ctx.func, None
    new = dataclasses.replace(buf, scope=scope)
    return ctx.func.with_body(_rewrite_buffer(ctx.func.body, buf, new, scope=scope)), None


def _valid_scope(scope: Any) -> bool:
    if not isinstance(scope, str) or not scope:
        return False
    base, _, tag = scope.partition(".")
    return base in ("global", "shared", "local", "warp", "texture") or base in ("wmma", "metal",
                                                                                 "m") and tag


def unsafe_set_dtype(ctx: Ctx, rv: BlockRV, index: int, dtype: str) -> tuple[Any, None]:
    br, buf = _written(ctx, rv, index, "unsafe_set_dtype")
    _check_allocated(ctx, buf, br.block.name, "unsafe_set_dtype")
    try:
        check_dtype(dtype)
    except (ValueError, KeyError) as err:
        raise ScheduleError(f"unsafe_set_dtype: {dtype!r} is not a data type ({err})") from None
    if buf.dtype == dtype:
        return ctx.func, None
    new = dataclasses.replace(buf, dtype=dtype)
    body = _rewrite_buffer(ctx.func.body, buf, new, cast=True, dtype=dtype)
    return ctx.func.with_body(body), None


def storage_align(ctx: Ctx, rv: BlockRV, index: int, axis: int, factor: int,
                  offset: int) -> tuple[Any, None]:
    """Records TVM's `buffer_dim_align` block annotation (the stride padding is a layout
    hint; tvmlite's lowering keeps buffers dense, which computes the same values)."""
    br, buf = _written(ctx, rv, index, "storage_align")
    name = br.block.name
    _check_allocated(ctx, buf, name, "storage_align")
    ndim = len(buf.shape)
    ax = axis + ndim if axis < 0 else axis
    if not 0 <= ax < ndim:
        raise ScheduleError(f"storage_align: axis {axis} is out of range for buffer "
                            f"{buf.name!r} of {ndim} dims (block {name!r})")
    if factor <= 0:
        raise ScheduleError(f"storage_align: factor must be positive, got {factor} "
                            f"(block {name!r})")
    if not 0 <= offset < factor:
        raise ScheduleError(f"storage_align: offset {offset} must be in [0, {factor}) "
                            f"(block {name!r})")
    anns = dict(br.block.annotations)
    # plain ints, as the parser reads T.block_attr({"buffer_dim_align": [[0, 0, 16, 1]]})
    aligns = [[int(x) for x in a] for a in anns.get("buffer_dim_align", [])]
    aligns = [a for a in aligns if not (a[0] == index and a[1] == ax)]
    aligns.append([index, ax, factor, offset])
    return _set_block_ann(ctx, rv, "buffer_dim_align", aligns), None


def _set_block_ann(ctx: Ctx, rv: BlockRV, key: str, value: Any) -> Any:
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    ann = tuple((k, v) for k, v in br.block.annotations if k != key) + ((key, value),)
    block = dataclasses.replace(br.block, annotations=ann)
    return ctx.func.with_body(tree.replace(path, dataclasses.replace(br, block=block)))


def unannotate(ctx: Ctx, rv: Any, key: str) -> tuple[Any, None]:
    if isinstance(rv, BlockRV):
        path = ctx.block_path(rv)
        br: BlockRealize = path[-1]  # type: ignore[assignment]
        node: Any = br.block
        what = f"block {br.block.name!r}"
    else:
        path = ctx.loop_path(rv)
        node = path[-1]
        what = f"loop {node.loop_var.name!r}"
    if key not in dict(node.annotations):
        raise ScheduleError(f"unannotate: {what} has no annotation {key!r}")
    ann = tuple((k, v) for k, v in node.annotations if k != key)
    new = dataclasses.replace(node, annotations=ann)
    if isinstance(rv, BlockRV):
        new = dataclasses.replace(path[-1], block=new)
    return ctx.func.with_body(tree.replace(path, new)), None


def add_unit_loop(ctx: Ctx, rv: Any) -> tuple[Any, Any]:
    """A loop of extent 1 (named `u`) around the block or loop; returns its handle."""
    path = ctx.block_path(rv) if isinstance(rv, BlockRV) else ctx.loop_path(rv)
    node = path[-1]
    dtype = node.loop_var.dtype if isinstance(node, For) else "int32"
    var = Var("u", dtype)
    loop = For(var, IntImm(dtype, 0), IntImm(dtype, 1), ForKind.SERIAL, node)
    return ctx.func.with_body(tree.replace(path, loop)), ctx.loop_rv(loop)


def annotate_buffer_access(ctx: Ctx, rv: BlockRV, index: int, buf_type: str,
                           gen_new_ranges: Any) -> tuple[Any, None]:
    """Records the accessed region a block declares for one of its buffers, as TVM's
    `explicit_read_region` / `explicit_write_region` annotation."""
    br = ctx.block(rv)
    if buf_type not in ("read", "write"):
        raise ScheduleError(f"annotate_buffer_access: buf_type must be 'read' or 'write', "
                            f"got {buf_type!r}")
    found = read_buffers(br.block) if buf_type == "read" else written_buffers(br.block)
    if not 0 <= index < len(found):
        raise ScheduleError(f"annotate_buffer_access: block {br.block.name!r} has "
                            f"{len(found)} {buf_type} buffers; index {index} is out of range")
    key = f"explicit_{buf_type}_region"
    old = [int(v) for v in dict(br.block.annotations).get(key, []) if int(v) != index]
    func = _set_block_ann(ctx, rv, key, old + [index])
    region = _annotated_region(br.block, found[index], gen_new_ranges)
    path = tree.block_path(func.body, br.block.name)
    assert path is not None
    blk = path[-1].block  # type: ignore[attr-defined]
    declared = list(blk.reads if buf_type == "read" else blk.writes) or _inferred(blk, buf_type)
    declared = [region if r.buffer is found[index] else r for r in declared]
    blk = dataclasses.replace(blk, **{f"{buf_type}s": tuple(declared)})
    return func.with_body(tree.replace(path, dataclasses.replace(path[-1], block=blk))), None


def ranges_map(block: Block, gen_new_ranges: Any, ndim: int) -> Any:
    """`gen_new_ranges` as the IndexMap TVM records: the block's iter vars to the flat list
    `[begin0, end0, begin1, end1, ...]` (a point `e` stands for `(e, e + 1)`). A function
    giving that flat list itself (a replayed trace's lambda) is taken as it is."""
    from ..index_map import IndexMap

    if isinstance(gen_new_ranges, IndexMap):
        return gen_new_ranges
    params = [iv.var for iv in block.iter_vars]
    spec = list(gen_new_ranges(*params))
    if len(spec) == 2 * ndim and not any(isinstance(r, (tuple, list)) for r in spec):
        return IndexMap(params, [const(x) for x in spec])
    flat: list[Any] = []
    for rng in spec:
        if isinstance(rng, (tuple, list)):
            if len(rng) != 2:
                raise ScheduleError("annotate_buffer_access: a range is (begin, end), got "
                                    f"{len(rng)} values")
            flat.extend(const(x) for x in rng)
        else:
            flat.extend([const(rng), const(rng) + 1])
    return IndexMap(params, flat)


def _annotated_region(block: Block, buf: Buffer, imap: Any) -> Any:
    from ..arith import constant_difference
    from ..stmt import BufferRegion, Range

    ends = imap.map_indices([iv.var for iv in block.iter_vars])
    if len(ends) != 2 * buf.ndim:
        raise ScheduleError(f"annotate_buffer_access: buffer {buf.name!r} has {buf.ndim} dims, "
                            f"got {len(ends) // 2} ranges")
    out = []
    for begin, end in zip(ends[::2], ends[1::2]):
        d = constant_difference(end, begin)
        out.append(Range(begin, IntImm(begin.dtype, d) if d is not None
                         else simplify(end - begin)))
    return BufferRegion(buf, tuple(out))


def _inferred(block: Block, buf_type: str) -> list[Any]:
    from .regions import point
    from .analysis import accesses

    found = read_buffers(block) if buf_type == "read" else written_buffers(block)
    reads, writes = accesses(block)
    first: dict[Any, Any] = {}
    for b, idx in (reads if buf_type == "read" else writes):
        first.setdefault(b, idx)
    return [point(b, first[b]) for b in found if b in first]


def unsafe_hide_buffer_access(ctx: Ctx, rv: BlockRV, buf_type: str, indices: list[int]
                              ) -> tuple[Any, None]:
    """Drops the block's read (or write) regions at `indices` from what it declares, so
    dependence analysis no longer sees them (TVM's unsafe escape hatch). A block declaring
    nothing declares its accesses first (one point region per buffer)."""
    from ..stmt import BufferRegion, Range

    br = ctx.block(rv)
    name = br.block.name
    if buf_type not in ("read", "write"):
        raise ScheduleError(f"unsafe_hide_buffer_access: buf_type must be 'read' or 'write', "
                            f"got {buf_type!r} (block {name!r})")
    declared = br.block.reads if buf_type == "read" else br.block.writes
    if not declared:
        from .analysis import accesses

        found = read_buffers(br.block) if buf_type == "read" else written_buffers(br.block)
        reads, writes = accesses(br.block)
        first = {}
        for buf, idx in reads + writes:
            first.setdefault(buf, idx)
        one = IntImm("int32", 1)
        declared = tuple(BufferRegion(b, tuple(Range(i, one) for i in first[b])) for b in found)
    bad = [k for k in indices if not 0 <= k < len(declared)]
    if bad:
        raise ScheduleError(f"unsafe_hide_buffer_access: block {name!r} has {len(declared)} "
                            f"{buf_type} regions; index {bad[0]} is out of range")
    kept = tuple(r for k, r in enumerate(declared) if k not in set(indices))
    field = "reads" if buf_type == "read" else "writes"
    path = ctx.block_path(rv)
    block = dataclasses.replace(br.block, **{field: kept})
    return ctx.func.with_body(tree.replace(path, dataclasses.replace(br, block=block))), None
