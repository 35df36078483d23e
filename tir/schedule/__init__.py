"""`tir.Schedule` (also `tvm.s_tir.Schedule`): TVM's loop-transformation API.

    sch = tvm.tir.Schedule(mod)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, factors=[None, 8])
    sch.parallel(i0)
    f = tvm.build(sch.mod)

See state.py for the model (pure primitives, unchanged module on error, trace).
"""

from __future__ import annotations

from typing import Any

from ..expr import IntImm
from ..stmt import ForKind
from . import blockize, cache, cache_stage, compute, loops, sample_location, sampling
from . import rolling_buffer as rolling
from .extra import ExtraPrimitives
from .state import ScheduleBase, ScheduleError
from .trace import BlockRV, ExprRV, Instruction, InstructionKind, LoopRV, Trace

__all__ = ["BlockRV", "ExprRV", "Instruction", "InstructionKind", "LoopRV", "Schedule",
           "ScheduleError", "Trace"]


class Schedule(ExtraPrimitives, ScheduleBase):
    """A schedule over an IRModule (or one PrimFunc, which becomes `main`)."""

    def sample_perfect_tile(self, loop: LoopRV, n: int, max_innermost_factor: int = 16,
                            decision: list[int] | None = None) -> list[ExprRV]:
        """`n` tile sizes whose product is the loop's extent (innermost at most
        `max_innermost_factor`), drawn at random unless `decision` gives them."""
        extent = self._ctx().loop(loop).extent
        if not isinstance(extent, IntImm):
            # as TVM: a loop of unknown extent is tiled trivially, its outer factor unknown
            factors = [-1] + [1] * (n - 1)
        elif decision:
            factors = sampling.check_tile_decision(decision, extent.value, n)
        else:
            factors = sampling.perfect_tile(self.rng, extent.value, n, max_innermost_factor)
        out = [None if f == -1 else ExprRV(f) for f in factors]
        self.trace.record("sample_perfect_tile", {
            "loop": loop, "n": n, "max_innermost_factor": max_innermost_factor,
            "decision": factors}, out)
        return out

    def sample_partitioned_tile(self, loop: LoopRV, n: int, partition_pos: int = 0,
                                innerpart_factor: int = 1,
                                decision: list[int] | None = None) -> list[ExprRV]:
        """`n` factors of the loop's extent whose product from `partition_pos` on is a
        multiple of `innerpart_factor`, drawn at random unless `decision` gives them."""
        extent = self._ctx().loop(loop).extent
        if not isinstance(extent, IntImm):
            raise ScheduleError(f"sample_partitioned_tile: loop {loop.var.name!r} has no "
                                f"constant extent to tile")
        if decision:
            factors = sampling.check_tile_decision(decision, extent.value, n)
        else:
            factors = sampling.partitioned_tile(self.rng, extent.value, n, partition_pos,
                                                innerpart_factor)
        out = [ExprRV(f) for f in factors]
        self.trace.record("sample_partitioned_tile", {
            "loop": loop, "n": n, "partition_pos": partition_pos,
            "innerpart_factor": innerpart_factor, "decision": factors}, out)
        return out

    def sample_categorical(self, candidates: list[int], probs: list[float],
                           decision: int | None = None) -> ExprRV:
        """One of `candidates`, drawn with probabilities `probs` unless `decision` (an index)."""
        if len(candidates) != len(probs):
            raise ScheduleError(f"sample_categorical: {len(candidates)} candidates but "
                                f"{len(probs)} probabilities")
        index = sampling.categorical(self.rng, list(probs)) if decision is None else decision
        if not 0 <= int(index) < len(candidates):
            raise ScheduleError(f"sample_categorical: decision {index} is out of range")
        out = ExprRV(int(candidates[int(index)]))
        self.trace.record("sample_categorical", {
            "candidates": list(candidates), "probs": list(probs), "decision": int(index)}, out)
        return out

    def split(self, loop: LoopRV, factors: list[Any], preserve_unit_iters: bool = True,
              disable_predication: bool = False) -> list[LoopRV]:
        return self._apply("split", {"loop": loop, "factors": list(factors)}, loops.split,
                           loop, list(factors))

    def fuse(self, *loops_: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        return self._apply("fuse", {"*": list(loops_)}, loops.fuse, *loops_)

    def reorder(self, *ordered_loops: LoopRV) -> None:
        self._apply("reorder", {"*": list(ordered_loops)}, loops.reorder,
                    *ordered_loops)

    def parallel(self, loop: LoopRV) -> None:
        self._apply("parallel", {"loop": loop}, loops.set_kind, loop, ForKind.PARALLEL)

    def vectorize(self, loop: LoopRV) -> None:
        self._apply("vectorize", {"loop": loop}, loops.set_kind, loop, ForKind.VECTORIZED)

    def unroll(self, loop: LoopRV) -> None:
        self._apply("unroll", {"loop": loop}, loops.set_kind, loop, ForKind.UNROLLED)

    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        self._apply("bind", {"loop": loop, "thread_axis": thread_axis}, loops.set_kind, loop,
                    ForKind.THREAD_BINDING, thread_axis)

    def annotate(self, block_or_loop: BlockRV | LoopRV, ann_key: str, ann_val: Any) -> None:
        self._apply("annotate", {"block_or_loop": block_or_loop, "ann_key": ann_key,
                                 "ann_val": ann_val}, loops.annotate, block_or_loop, ann_key,
                    ann_val)

    def compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        self._apply("compute_at", {"block": block, "loop": loop,
                                   "preserve_unit_loops": preserve_unit_loops, "index": index},
                    _compute_at_or_mark, block, loop, preserve_unit_loops, index)

    def reverse_compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False,
                           index: int = -1) -> None:
        self._apply("reverse_compute_at", {"block": block, "loop": loop,
                                           "preserve_unit_loops": preserve_unit_loops,
                                           "index": index},
                    compute.reverse_compute_at, block, loop, preserve_unit_loops, index)

    def compute_inline(self, block: BlockRV) -> None:
        self._apply("compute_inline", {"block": block}, compute.compute_inline, block)

    def reverse_compute_inline(self, block: BlockRV) -> None:
        self._apply("reverse_compute_inline", {"block": block}, compute.reverse_compute_inline,
                    block)

    def cache_read(self, block: BlockRV | str, read_buffer_index: Any, storage_scope: str,
                   consumer_blocks: list[Any] | None = None) -> BlockRV:
        """A `storage_scope` copy of a buffer the block reads, read by its consumers instead
        (all readers, or `consumer_blocks`); where and how big: cache_stage.py."""
        return self._cache("read", block, read_buffer_index, storage_scope, consumer_blocks)

    def cache_write(self, block: BlockRV | str, write_buffer_index: Any, storage_scope: str,
                    consumer_blocks: list[Any] | None = None) -> BlockRV:
        """The block writes a `storage_scope` copy of its buffer, copied back after it
        (`consumer_blocks` read the copy directly)."""
        return self._cache("write", block, write_buffer_index, storage_scope, consumer_blocks)

    def _cache(self, kind: str, block: Any, buffer: Any, scope: str, consumers: Any) -> BlockRV:
        block = self._block_rv(block)
        index = self._access_index(block, buffer, kind == "read")
        rvs = [self._block_rv(c) for c in consumers or ()]
        kwargs = {"block": block, f"{kind}_buffer_index": index, "storage_scope": scope}
        if rvs:
            kwargs["consumer_blocks"] = rvs
        fn = cache_stage.cache_read if kind == "read" else cache_stage.cache_write
        return self._apply(f"cache_{kind}", kwargs, fn, block, index, scope,
                           [r.name for r in rvs] or None)

    def _access_index(self, block: BlockRV, buffer: Any, reads: bool) -> int:
        """A buffer given by index, name or Buffer, as its index among the block's reads
        (or writes)."""
        if isinstance(buffer, int) or hasattr(buffer, "__index__"):
            return int(buffer)
        from . import analysis

        node = self._ctx().block(block).block
        found = analysis.read_buffers(node) if reads else analysis.written_buffers(node)
        for i, buf in enumerate(found):
            if buf is buffer or (isinstance(buffer, str) and buf.name == buffer):
                return i
        raise ScheduleError(f"block {node.name!r} {'reads' if reads else 'writes'} no buffer "
                            f"{buffer!r}")

    def decompose_reduction(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        return self._apply("decompose_reduction", {"block": block, "loop": loop},
                           cache.decompose_reduction, block, loop)

    def blockize(self, target: LoopRV | list[BlockRV], preserve_unit_iters: bool = True
                 ) -> BlockRV:
        """The nest under loop `target` becomes one outer block, iter vars inferred."""
        return self._apply("blockize", {"target": target,
                                        "preserve_unit_iters": preserve_unit_iters},
                           blockize.blockize, target, preserve_unit_iters)

    def rolling_buffer(self, block: BlockRV | str, write_buffer_index: int) -> None:
        """The producer's buffer keeps only the window its consumer tile needs, reused
        across the tile loop's iterations (rolling_buffer.py)."""
        self._apply("rolling_buffer", {"block": block,
                                       "write_buffer_index": int(write_buffer_index)},
                    rolling.rolling_buffer, block, int(write_buffer_index))

    def cache_inplace(self, block: BlockRV | str, read_buffer_index: int,
                      storage_scope: str) -> list[BlockRV]:
        """The block's in-place buffer is staged through a `storage_scope` copy: returns
        the copy-in and copy-out blocks (cache.py)."""
        return self._apply("cache_inplace", {"block": block,
                                             "read_buffer_index": int(read_buffer_index),
                                             "storage_scope": storage_scope},
                           cache.cache_inplace, block, int(read_buffer_index), storage_scope)


def _compute_at_or_mark(ctx: Any, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool,
                        index: int) -> Any:
    """compute_at, where the marks sample_compute_location draws mean: at the root (leave
    the block as it is) and inline (compute_inline)."""
    if loop is sample_location.COMPUTE_ROOT:
        return ctx.func, None
    if loop is sample_location.COMPUTE_INLINE:
        return compute.compute_inline(ctx, block)
    return compute.compute_at(ctx, block, loop, preserve_unit_loops, index)
