"""Loop primitives in TVM 0.27's exact form: fuse's bindings and extent (printed by TVM for
the same steps), reorder refusing a non-affine binding, loop_partition's copies binding their
own vars; numerics against numpy through the reference interpreter."""

import numpy as np
import pytest

from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir import Schedule, ScheduleError
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run


@T.prim_func(s_tir=True)
def scale3(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (4, 6, n))
    B = T.match_buffer(b, (4, 6, n))
    for i, j, k in T.grid(4, 6, n):
        with T.sblock("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)


# apache-tvm 0.27 after fuse(i, j, k) (its T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def scale3_fused(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (4, 6, n))
    B = T.match_buffer(b, (4, 6, n))
    for i_j_k_fused in range(n * 24):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i_j_k_fused // (n * 6))
            vj = T.axis.spatial(6, i_j_k_fused % (n * 6) // n)
            vk = T.axis.spatial(n, i_j_k_fused % n)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)


def test_fuse_of_three_loops_binds_the_middle_one_as_tvm():
    sch = Schedule(scale3)
    sch.fuse(*sch.get_loops("B"))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], scale3_fused)
    verify_trace_roundtrip(sch, scale3)
    a = np.random.default_rng(1).random((4, 6, 5), dtype=np.float32)
    b = np.zeros_like(a)
    run(sch.mod["main"], a, b, 5)
    np.testing.assert_allclose(b, 2 * a)


@T.prim_func(s_tir=True)
def squares(A: T.Buffer((14, 4), "float32"), B: T.Buffer((14, 4), "float32")):
    for v0, v1, v2 in T.grid(3, 4, 4):
        with T.sblock("block"):
            i = T.axis.spatial(14, v0 * v0 + v1)
            j = T.axis.spatial(4, v2)
            B[i, j] = A[i, j] + T.float32(1)


def test_reorder_refuses_loops_bound_non_affinely_and_allows_the_others():
    sch = Schedule(squares)
    v0, v1, v2 = sch.get_loops("block")
    before = sch.mod
    with pytest.raises(ScheduleError, match="non-affinely"):
        sch.reorder(v0, v2, v1)  # v0 appears as v0 * v0: TVM 0.27 refuses this too
    assert sch.mod is before
    sch.reorder(v2, v1)
    a = np.random.default_rng(2).random((14, 4), dtype=np.float32)
    b, want = np.zeros_like(a), np.zeros_like(a)
    run(sch.mod["main"], a, b)
    run(squares, a, want)
    np.testing.assert_allclose(b, want)


@T.prim_func(s_tir=True)
def copy2(A: T.Buffer((8, 6), "float32"), B: T.Buffer((8, 6), "float32")):
    for i, j in T.grid(8, 6):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]


def test_loop_partition_copies_bind_fresh_inner_vars():
    sch = Schedule(copy2)
    parts = sch.loop_partition(sch.get_loops("B")[0], factors=[None, 5])
    inner = [sch.get(sch.get_loops(sch.get_child_blocks(p)[0])[-1]) for p in parts]
    assert inner[0].loop_var is not inner[1].loop_var  # TVM's parts are separate scopes
    # the printed form parses back to an equal function only when no var is bound twice
    from tvmlite.script import from_source
    assert_structural_equal(from_source(sch.mod["main"].script()), sch.mod["main"])
    a = np.random.default_rng(3).random((8, 6), dtype=np.float32)
    b = np.zeros_like(a)
    run(sch.mod["main"], a, b)
    np.testing.assert_allclose(b, a)


@T.prim_func(s_tir=True)
def rowsum_squared_k(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 4):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(16, k * k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func(s_tir=True)
def sum_into_reduce_index(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vk] = T.float32(0)
            B[vk] = B[vk] + A[vi, vk]


@pytest.mark.parametrize("func, why", [(rowsum_squared_k, "non-affinely"),
                                        (sum_into_reduce_index, "compact data flow")])
def test_parallel_refuses_what_tvm_refuses(func, why):
    # apache-tvm 0.27 raises ScheduleError for sch.parallel(i) on both functions
    sch = Schedule(func)
    i = sch.get_loops("B")[0]
    before = sch.mod
    with pytest.raises(ScheduleError, match=why):
        sch.parallel(i)
    assert sch.mod is before


@T.prim_func(s_tir=True)
def copy_rows(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (4, n * 8))
    B = T.match_buffer(b, (4, n * 8))
    for i, k in T.grid(4, n * 8):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi, vk] + T.float32(1)


# apache-tvm 0.27 after split(k, [None, 8]): n * 8 splits exactly, so no predicate
@T.prim_func(s_tir=True)
def copy_rows_split(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (4, n * 8))
    B = T.match_buffer(b, (4, n * 8))
    for i, k_0, k_1 in T.grid(4, n, 8):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.spatial(n * 8, k_0 * 8 + k_1)
            B[vi, vk] = A[vi, vk] + T.float32(1)


def test_split_of_a_symbolic_multiple_needs_no_predicate():
    sch = Schedule(copy_rows)
    sch.split(sch.get_loops("B")[1], [None, 8])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], copy_rows_split)
    verify_trace_roundtrip(sch, copy_rows)
    a = np.random.default_rng(4).standard_normal((4, 24)).astype("float32")
    b = np.zeros((4, 24), "float32")
    run(sch.mod["main"], a, b, 3)
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)
