"""reorder_block_iter_var, merge and sample_compute_location: the printed result against what
TVM 0.27 prints for the same steps, numpy, legality errors and the replayed trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def chain(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.sblock_alloc_buffer((8, 12))
    for i, j in T.grid(8, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


# TVM 0.27 after reorder_block_iter_var(B, [1, 0])
@T.prim_func(s_tir=True)
def chain_iters_swapped(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.sblock_alloc_buffer((8, 12))
    for i, j in T.grid(8, 12):
        with T.sblock("B"):
            vj, vi = T.axis.remap("SS", [j, i])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


# TVM 0.27 after merge(loops(B)[0], loops(C)[0])
@T.prim_func(s_tir=True)
def chain_merged(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.sblock_alloc_buffer((8, 12))
    for i_m in range(8):
        for j in range(12):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(12):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)


def _runs_right(sch: Schedule) -> None:
    a = np.random.default_rng(2).standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_reorder_block_iter_var_matches_tvm():
    sch = Schedule(chain)
    sch.reorder_block_iter_var(sch.get_block("B"), [1, 0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], chain_iters_swapped)
    verify_trace_roundtrip(sch, chain)
    _runs_right(sch)


def test_reorder_block_iter_var_needs_a_permutation():
    sch = Schedule(chain)
    before = sch.mod
    with pytest.raises(ScheduleError, match="'B'"):
        sch.reorder_block_iter_var("B", [0, 0])
    assert sch.mod is before


def test_merge_matches_tvm():
    sch = Schedule(chain)
    sch.merge(sch.get_loops("B")[0], sch.get_loops("C")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], chain_merged)
    verify_trace_roundtrip(sch, chain)
    _runs_right(sch)


def test_merge_rejects_loops_of_different_extents():
    sch = Schedule(chain)
    sch.split(sch.get_loops("C")[0], [2, 4])
    before = sch.mod
    with pytest.raises(ScheduleError, match="differ in range"):
        sch.merge(sch.get_loops("B")[0], sch.get_loops("C")[0])
    assert_structural_equal(sch.mod, before)


def test_sample_compute_location_returns_a_legal_loop_and_replays():
    sch = Schedule(chain, seed=3)
    loop = sch.sample_compute_location("B", decision=1)
    assert sch.get(loop) is sch.get(sch.get_loops("C")[1])
    sch.compute_at(sch.get_block("B"), loop)
    assert "sample_compute_location(block=b0, decision=1)" in str(sch.trace)
    verify_trace_roundtrip(sch, chain)
    _runs_right(sch)
    with pytest.raises(ScheduleError, match="out of range"):
        Schedule(chain).sample_compute_location("B", decision=5)


@T.prim_func(s_tir=True)
def add_one(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)


# TVM 0.27 after loop_partition(loops(C)[1], [None, 4]) (its empty T.reads/T.writes and its
# region annotations left out)
@T.prim_func(s_tir=True)
def add_one_partitioned(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    for i in range(8):
        with T.sblock("C_j_common"):
            with T.sblock("C_j0_partition"):
                for j0 in range(8):
                    with T.sblock("C_j0"):
                        vi, vj = T.axis.remap("SS", [i, j0])
                        C[vi, vj] = A[vi, vj] + T.float32(1.0)
            with T.sblock("C_j1_partition"):
                for j1 in range(8, 12):
                    with T.sblock("C_j1"):
                        vi, vj = T.axis.remap("SS", [i, j1])
                        C[vi, vj] = A[vi, vj] + T.float32(1.0)


def test_loop_partition_matches_tvm():
    sch = Schedule(add_one)
    parts = sch.loop_partition(sch.get_loops("C")[1], [None, 4])
    assert [int(sch.get(p).extent) for p in parts] == [8, 4]
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], add_one_partitioned)
    verify_trace_roundtrip(sch, add_one)
    a = np.random.default_rng(1).standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a, c)
    np.testing.assert_allclose(c, a + 1, rtol=1e-6)


@T.prim_func(s_tir=True)
def declared_regions(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0:8, 0:12])
            T.writes(C[0:8, 0:12])
            C[vi, vj] = A[vi, vj] + T.float32(1)


def test_loop_partition_infers_each_copys_regions():
    # a declared region spans the whole loop; each partition's copy touches only its part, so
    # TVM infers the copies' regions anew (`T.writes(C[0:8, 0:8])` in TVM's printing)
    sch = Schedule(declared_regions)
    sch.loop_partition(sch.get_loops("C")[1], [None, 4])
    for name in ("C_j0", "C_j1"):
        block = sch.get(sch.get_block(name))
        assert block.reads == () and block.writes == ()
    verify_trace_roundtrip(sch, declared_regions)
    a = np.random.default_rng(2).standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a, c)
    np.testing.assert_allclose(c, a + 1, rtol=1e-6)


@pytest.mark.parametrize("factors", [[5, 8], [None, None], [0, 12]])
def test_loop_partition_needs_factors_that_partition_the_loop(factors):
    sch = Schedule(add_one)
    before = sch.mod
    with pytest.raises(ScheduleError, match="loop 'j'"):
        sch.loop_partition(sch.get_loops("C")[1], factors)
    assert sch.mod is before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_partitioned_tile_keeps_the_inner_part_a_multiple(seed):
    sch = Schedule(add_one, seed=seed)
    j = sch.get_loops("C")[1]
    factors = sch.sample_partitioned_tile(j, n=3, partition_pos=1, innerpart_factor=4)
    values = [int(f) for f in factors]
    assert np.prod(values) == 12 and (values[1] * values[2]) % 4 == 0
    sch.split(j, factors)
    verify_trace_roundtrip(sch, add_one)
    _runs_right_add_one(sch)


def test_sample_partitioned_tile_rejects_impossible_requests():
    sch = Schedule(add_one)
    with pytest.raises(ScheduleError, match="divisible by 5"):
        sch.sample_partitioned_tile(sch.get_loops("C")[1], n=2, innerpart_factor=5)


def _runs_right_add_one(sch: Schedule) -> None:
    a = np.random.default_rng(3).standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a, c)
    np.testing.assert_allclose(c, a + 1, rtol=1e-6)
