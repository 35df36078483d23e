"""`rolling_buffer`: a producer computed at a consumer's tile loop keeps only a window of its
buffer, reused across the tile loop's iterations, as TVM does it.

After `compute_at`, a producer of a sliding-window consumer (a pooling, a convolution) writes
`B[i_0 * 4 : i_0 * 4 + 6]` per iteration of the tile loop `i_0`: successive windows overlap by
2. A window start is matched as TVM does: `v * s`, `v` or `(v * s) // d` (an upsampling
consumer: a stride of ceil(s / d)); a constant start does not move. `rolling_buffer(B, 0)` then
  - shrinks the dim whose window moves with the outermost loop to the window (6), every
    access indexing it `% 6`;
  - makes the iter vars that index that dim opaque (a modulo is not an affine access);
  - skips what the previous iteration already computed, for every overlapping dim:
    `T.where(i_0 < 1 or 2 <= ax0)` (ax0 the position inside the window).
Errors (a ScheduleError naming the block, module unchanged): several blocks write the buffer,
the producer is not under a loop it shares with its consumers, a window start of another
form, no dim overlaps.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import int_value
from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import Mutator, simplify, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For, IterType
from . import analysis, tree
from .state import Ctx, ScheduleError
from .trace import BlockRV


@dataclasses.dataclass(frozen=True)
class _Overlap:
    dim: int
    loop: For  # the shared loop the window slides along
    window: int  # the window's extent
    stride: int  # how far it moves per iteration of `loop`
    inner: PrimExpr  # the written index relative to the window's start


def _window_step(lo: PrimExpr, loop_vars: set[Var]) -> tuple[Var, int] | None | bool:
    """How a window start moves with a shared loop, as TVM matches it: `v * s` or `v` (stride
    s or 1), `(v * s) // d` (a fractional stride, rounded up); a constant start does not move
    (None); any other form is not understood (False)."""
    if isinstance(lo, IntImm):
        return None
    if isinstance(lo, Var):
        return (lo, 1) if lo in loop_vars else False
    if isinstance(lo, BinOp) and lo.op is BinaryOp.FLOORDIV and isinstance(lo.b, IntImm) \
            and lo.b.value > 0:
        inner = _window_step(lo.a, loop_vars)
        if isinstance(inner, tuple):
            return inner[0], -(-inner[1] // lo.b.value)
        return False
    if isinstance(lo, BinOp) and lo.op is BinaryOp.MUL:
        for v, k in ((lo.a, lo.b), (lo.b, lo.a)):
            if isinstance(v, Var) and v in loop_vars and isinstance(k, IntImm):
                return v, k.value
    return False


def _find_overlaps(path: tree.Path, buf: Buffer, name: str) -> list[_Overlap]:
    loops = tree.loops_above(path)
    top = tree.exclusive_top(path)
    shared = [lp for lp in loops if not any(lp is s for s in path[top:])]
    if not shared:
        raise ScheduleError(f"rolling_buffer: block {name!r} is under no loop it shares with "
                            f"its consumers; compute_at it under their tile loop first")
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    region = analysis.region_under([path], shared[-1], buf, reads=False)
    store = next(s for s in _stores(br.block) if s.buffer is buf)
    binds = analysis.bindings(br)
    shared_vars = {lp.loop_var: lp for lp in shared}
    found = []
    for dim, (lo, ext) in enumerate(region):
        step = _window_step(simplify(lo), set(shared_vars))
        if step is False:
            raise ScheduleError(f"rolling_buffer: block {name!r} writes dim {dim} of "
                                f"{buf.name!r} from {lo}, not from `loop_var * stride` or a "
                                f"constant")
        window = int_value(ext)
        if step is None or window is None or window <= step[1]:
            continue
        var, stride = step
        # the written index with the window's loop at 0: the position inside the window
        idx = simplify(substitute(store.indices[dim], binds))
        inner = simplify(substitute(idx, {var: IntImm(var.dtype, 0)}))
        found.append(_Overlap(dim, shared_vars[var], window, stride, inner))
    if not found:
        raise ScheduleError(f"rolling_buffer: the windows of {buf.name!r} that block {name!r} "
                            f"writes per iteration of its shared loops do not overlap")
    return found


def _rolling(overlaps: list[_Overlap], path: tree.Path) -> _Overlap:
    """The dim that rolls: the first one whose window moves along the outermost loop, as TVM
    picks it (the others only skip what was computed)."""
    order = {id(lp): i for i, lp in enumerate(tree.loops_above(path))}
    return min(overlaps, key=lambda o: order[id(o.loop)])


def _stores(block: Block) -> list[BufferStore]:
    out = []
    for s in (block.body, block.init):
        if isinstance(s, BufferStore):
            out.append(s)
    return out


class _Roll(Mutator):
    """Swaps in the shrunk buffer, indexes its rolling dim modulo the window and makes the
    iter vars indexing that dim opaque."""

    def __init__(self, old: Buffer, new: Buffer, dim: int, window: int) -> None:
        self.old, self.new, self.dim, self.window = old, new, dim, window
        self.rolled: set[Var] = set()

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        return self.new if buf is self.old else buf

    def _indices(self, indices: tuple[PrimExpr, ...]) -> tuple[PrimExpr, ...]:
        idx = [self.visit(i) for i in indices]
        self.rolled.update(free_vars(idx[self.dim]))
        dtype = idx[self.dim].dtype
        idx[self.dim] = BinOp(BinaryOp.FLOORMOD, idx[self.dim], IntImm(dtype, self.window))
        return tuple(idx)

    def visit_BufferLoad(self, e: BufferLoad) -> Any:
        if e.buffer is not self.old:
            return self.generic_visit(e)
        return dataclasses.replace(e, buffer=self.new, indices=self._indices(e.indices))

    def visit_BufferStore(self, s: BufferStore) -> Any:
        if s.buffer is not self.old:
            return self.generic_visit(s)
        return dataclasses.replace(s, buffer=self.new, value=self.visit(s.value),
                                   indices=self._indices(s.indices))

    def visit_Block(self, b: Block) -> Any:
        before = set(self.rolled)
        self.rolled = set()
        new = self.generic_visit(b)
        if self.rolled:
            ivs = tuple(dataclasses.replace(iv, iter_type=IterType.OPAQUE)
                        if iv.var in self.rolled and iv.iter_type is IterType.SPATIAL else iv
                        for iv in new.iter_vars)
            new = dataclasses.replace(new, iter_vars=ivs, reads=(), writes=())
        self.rolled = before
        return new


def _skip_computed(pred: PrimExpr, overlaps: list[_Overlap]) -> PrimExpr:
    """`pred and (L < 1 or inner >= overlap) and ...`: skip what an earlier iteration of the
    tile loop already wrote."""
    out: PrimExpr | None = None if isinstance(pred, IntImm) and pred.value else pred
    for o in overlaps:
        lv = o.loop.loop_var
        first = BinOp(BinaryOp.LT, lv, simplify(o.loop.min + IntImm(lv.dtype, 1)))
        # `overlap <= inner` as Python builds it (the reflected `inner >= overlap`)
        fresh = BinOp(BinaryOp.GE, o.inner, IntImm(o.inner.dtype, o.window - o.stride))
        term = BinOp(BinaryOp.OR, first, fresh)
        out = term if out is None else BinOp(BinaryOp.AND, out, term)
    assert out is not None
    return out


def rolling_buffer(ctx: Ctx, rv: BlockRV, write_buffer_index: int) -> tuple[Any, None]:
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    written = analysis.written_buffers(br.block)
    if not 0 <= write_buffer_index < len(written):
        raise ScheduleError(f"rolling_buffer: block {name!r} writes {len(written)} buffers; "
                            f"index {write_buffer_index} is out of range")
    buf = written[write_buffer_index]
    if any(b is buf for _, b in ctx.func.buffer_map):
        raise ScheduleError(f"rolling_buffer: {buf.name!r} is a parameter of the function; "
                            f"only an allocated buffer can roll")
    writers = analysis.writers(ctx.func.body, buf)
    if len(writers) != 1:
        raise ScheduleError(f"rolling_buffer: {len(writers)} blocks write {buf.name!r}; "
                            f"block {name!r} must be its only producer")
    overlaps = _find_overlaps(path, buf, name)
    roll = _rolling(overlaps, path)
    shape = list(buf.shape)
    shape[roll.dim] = IntImm(shape[roll.dim].dtype, roll.window)
    new_buf = dataclasses.replace(buf, shape=tuple(shape))
    pred = _skip_computed(br.predicate, overlaps)
    body = tree.replace(path, dataclasses.replace(br, predicate=pred))
    body = _Roll(buf, new_buf, roll.dim, roll.window).visit(body)
    return ctx.func.with_body(body), None
