"""A default design space for tuning on the CPU (what `meta_schedule.tune_tir` searches when
no schedule function is given), in the spirit of TVM's multi-level tiling.

Every block gets a stochastic schedule written with the ordinary primitives, so its trace reads
like one a person would write:

- a reduction block (`with T.init()`) whose loops are spatial then reduce: its result is
  accumulated in a `local` tile (cache_write), the two innermost spatial loops are tiled with
  sampled sizes, the tile loops go inside the reduction, the innermost one is vectorized, the
  outer ones run in parallel when there are several cores; the init is split off;
- any other block: the innermost spatial loop is split with a sampled size and vectorized, the
  outermost runs in parallel.

A block whose shape does not fit (symbolic extents, reductions outermost, ...) is left as
written: a primitive that refuses leaves the module unchanged, and so does the space.

`default_gpu_space` is the MLC course's GPU `blocking` schedule with sampled tile sizes, for a
function that is one matmul-like block: the two spatial loops split in three (block, thread,
per-thread tile), the per-thread tile accumulated in `local` registers, the outer levels bound
to `blockIdx.y/x` and `threadIdx.y/x`. Anything else is left unbound, for the fallback schedule
the CUDA build applies (dlight's).
"""

from __future__ import annotations

from typing import Any

from ..expr import IntImm
from ..function import free_vars
from ..stmt import IterType
from . import tree
from .state import ScheduleError


def default_space(sch: Any, num_cores: int = 1) -> Any:
    """Samples one schedule of every block of the schedule's prim_func; returns `sch`."""
    func = sch.mod[sch.func_working_on]
    names = [br.block.name for br in tree.blocks_under(func.body) if br.block.name != "root"]
    for name in names:
        try:
            _schedule_block(sch, name, num_cores)
        except ScheduleError:
            continue  # NOTE: what was applied before the refusal is still a valid program
    return sch


def _loop_kinds(sch: Any, block: Any, loops: list[Any]) -> list[IterType] | None:
    """Per loop, SPATIAL or REDUCE from the iter vars it feeds; None if a loop feeds both or
    has no constant extent."""
    br = tree.block_path(sch.mod[sch.func_working_on].body, block.name)[-1]
    uses: dict[Any, set[IterType]] = {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        for v in free_vars(value):
            uses.setdefault(v, set()).add(iv.iter_type)
    kinds = []
    for rv in loops:
        loop = sch.get(rv)
        found = uses.get(loop.loop_var, {IterType.SPATIAL})
        if len(found) != 1 or not isinstance(loop.extent, IntImm):
            return None
        kinds.append(next(iter(found)))
    return kinds


def _schedule_block(sch: Any, name: str, num_cores: int) -> None:
    block = sch.get_block(name)
    loops = sch.get_loops(block)
    kinds = _loop_kinds(sch, sch.get(block), loops)
    if not loops or kinds is None:
        return
    spatial = [lp for lp, k in zip(loops, kinds) if k is IterType.SPATIAL]
    reduce = [lp for lp, k in zip(loops, kinds) if k is IterType.REDUCE]
    if sch.get(block).init is not None and reduce and len(spatial) >= 1 and \
            kinds == sorted(kinds, key=lambda k: k is IterType.REDUCE):
        _tile_reduction(sch, block, spatial, reduce, num_cores)
    elif not reduce:
        _vectorize_elementwise(sch, spatial, num_cores)


def _tile_reduction(sch: Any, block: Any, spatial: list[Any], reduce: list[Any],
                    num_cores: int) -> None:
    local = sch.cache_write(block, 0, "local")
    j0, j1 = sch.split(spatial[-1], sch.sample_perfect_tile(spatial[-1], n=2,
                                                            max_innermost_factor=16))
    outer, inner = spatial[:-2], [j1]
    if len(spatial) >= 2:
        i0, i1 = sch.split(spatial[-2], sch.sample_perfect_tile(spatial[-2], n=2,
                                                                max_innermost_factor=8))
        outer, inner = outer + [i0], [i1, j1]
    sch.reorder(*outer, j0, *reduce, *inner)
    sch.reverse_compute_at(local, j0)
    sch.vectorize(j1)
    sch.decompose_reduction(block, reduce[0])
    if num_cores > 1 and outer:
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])


def _vectorize_elementwise(sch: Any, spatial: list[Any], num_cores: int) -> None:
    _, inner = sch.split(spatial[-1], sch.sample_perfect_tile(spatial[-1], n=2,
                                                              max_innermost_factor=16))
    sch.vectorize(inner)
    if num_cores > 1 and len(spatial) > 1:
        sch.parallel(spatial[0])


MAX_THREADS_PER_BLOCK = 1024


def default_gpu_space(sch: Any) -> Any:
    """Samples one GPU schedule (see the module docstring); returns `sch`."""
    func = sch.mod[sch.func_working_on]
    blocks = [br.block.name for br in tree.blocks_under(func.body) if br.block.name != "root"]
    if len(blocks) != 1:
        return sch
    block = sch.get_block(blocks[0])
    loops = sch.get_loops(block)
    kinds = _loop_kinds(sch, sch.get(block), loops)
    if kinds != [IterType.SPATIAL, IterType.SPATIAL, IterType.REDUCE] or sch.get(block).init \
            is None:
        return sch
    i, j, k = loops
    local = sch.cache_write(block, 0, "local")
    i0, i1, i2 = sch.split(i, sch.sample_perfect_tile(i, n=3, max_innermost_factor=8))
    j0, j1, j2 = sch.split(j, sch.sample_perfect_tile(j, n=3, max_innermost_factor=8))
    threads = sch.get(i1).extent.value * sch.get(j1).extent.value
    if threads > MAX_THREADS_PER_BLOCK:
        raise ScheduleError(f"{threads} threads per block is over the GPU's "
                            f"{MAX_THREADS_PER_BLOCK}")
    sch.reorder(i0, j0, i1, j1, k, i2, j2)
    sch.reverse_compute_at(local, j1)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    sch.bind(i1, "threadIdx.y")
    sch.bind(j1, "threadIdx.x")
    sch.decompose_reduction(block, k)
    return sch

