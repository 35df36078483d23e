"""reindex: the printed result and trace against what TVM 0.27 prints for the same steps,
numpy, legality errors that leave the module unchanged, and the replayed trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def mm(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"),
       C: T.Buffer((16, 8), "float32")):
    for i, j, k in T.grid(16, 8, 32):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# TVM 0.27 after reindex(C, ("read", 1)) then reindex(C, ("write", 0))
@T.prim_func(s_tir=True)
def mm_reindexed(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"),
                 C: T.Buffer((16, 8), "float32")):
    B_reindex = T.sblock_alloc_buffer((8, 32))
    C_reindex = T.sblock_alloc_buffer((16, 8))
    for ax0, ax1 in T.grid(8, 32):
        with T.sblock("B_reindex_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B_reindex[v0, v1] = B[v1, v0]
    for i, j, k in T.grid(16, 8, 32):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_reindex[vi, vj] = T.float32(0.0)
            C_reindex[vi, vj] = C_reindex[vi, vj] + A[vi, vk] * B_reindex[vj, vk]
    for ax0, ax1 in T.grid(16, 8):
        with T.sblock("C_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            C[v0, v1] = C_reindex[v0, v1]


@T.prim_func(s_tir=True)
def shifted(A: T.Buffer((20,), "float32"), B: T.Buffer((16, 5), "float32")):
    for i, k in T.grid(16, 5):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi + vk] + A[vi + vk]


TVM_TRACE = '''  b1 = sch.reindex(block=b0, buffer=("read", 1))
  b2 = sch.get_sblock(name="C", func_name="main")
  b3 = sch.reindex(block=b2, buffer=("write", 0))'''


def test_reindex_matches_tvm_and_computes_the_product():
    sch = Schedule(mm)
    sch.reindex(sch.get_block("C"), ("read", 1))
    sch.reindex(sch.get_block("C"), ("write", 0))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], mm_reindexed)
    assert TVM_TRACE in str(sch.trace)
    verify_trace_roundtrip(sch, mm)
    rng = np.random.default_rng(4)
    a, b = rng.random((16, 32), "float32"), rng.random((32, 8), "float32")
    c = np.zeros((16, 8), "float32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_reindex_of_an_index_expression_gathers_through_the_iter_vars():
    sch = Schedule(shifted)
    stage = sch.reindex("B", "A")
    assert [int(d) for d in sch.get(stage).body.buffer.shape] == [16, 5]
    verify_trace_roundtrip(sch, shifted)
    a = np.arange(20, dtype="float32")
    b = np.zeros((16, 5), "float32")
    tvm.build(sch.mod)(a, b)
    np.testing.assert_allclose(b, 2 * a[np.arange(16)[:, None] + np.arange(5)])


@T.prim_func(s_tir=True)
def two_regions(A: T.Buffer((20,), "float32"), B: T.Buffer((16, 4), "float32")):
    for i, k in T.grid(16, 4):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi + vk] + A[vi]


def test_reindex_rejects_a_buffer_read_at_two_indices():
    sch = Schedule(two_regions)
    before = sch.mod
    with pytest.raises(ScheduleError, match="'B' accesses 'A' at different indices"):
        sch.reindex("B", ("read", 0))
    assert before is sch.mod


@T.prim_func(s_tir=True)
def resize(A: T.Buffer((1, 3, 40, 40), "float32"), B: T.Buffer((1, 3, 80, 80), "float32")):
    for i0, i1, i2, i3 in T.grid(1, 3, 80, 80):
        with T.sblock("A"):
            n, c, vi, vj = T.axis.remap("SSSS", [i0, i1, i2, i3])
            B[n, c, vi, vj] = A[n, c, vi // 4 + vj // 4, vj // 2]


# TVM 0.27 after cache_index("A", "global"), less its T.reads/T.writes and the odd strides=[1]
# it gives the index buffers
@T.prim_func(s_tir=True)
def resize_cache_index(A: T.Buffer((1, 3, 40, 40), "float32"),
                       B: T.Buffer((1, 3, 80, 80), "float32")):
    index_var_0 = T.sblock_alloc_buffer([80, 80], dtype="int32")
    index_var_1 = T.sblock_alloc_buffer([80], dtype="int32")
    for ax0, ax1 in T.grid(80, 80):
        with T.sblock("index_0"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            index_var_0[v0, v1] = v0 // 4 + v1 // 4
    for ax0 in T.serial(80):
        with T.sblock("index_1"):
            v0 = T.axis.spatial(80, ax0)
            index_var_1[v0] = v0 // 2
    for i0, i1, i2, i3 in T.grid(1, 3, 80, 80):
        with T.sblock("A"):
            n, c, vi, vj = T.axis.remap("SSSS", [i0, i1, i2, i3])
            B[n, c, vi, vj] = A[n, c, index_var_0[vi, vj], index_var_1[vj]]


def test_cache_index_matches_tvm_and_gathers_the_same():
    sch = Schedule(resize)
    stages = sch.cache_index(sch.get_block("A"), "global")
    assert [sch.get(s).name_hint for s in stages] == ["index_0", "index_1"]
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], resize_cache_index)
    verify_trace_roundtrip(sch, resize)
    a = np.random.default_rng(8).random((1, 3, 40, 40), "float32")
    b = np.zeros((1, 3, 80, 80), "float32")
    tvm.build(sch.mod)(a, b)
    vi, vj = np.meshgrid(np.arange(80), np.arange(80), indexing="ij")
    np.testing.assert_array_equal(b, a[:, :, vi // 4 + vj // 4, vj // 2])


def test_cache_index_needs_a_computed_index():
    sch = Schedule(mm)
    before = sch.mod
    with pytest.raises(ScheduleError, match="'C' reads no buffer at a computed index"):
        sch.cache_index("C", "global")
    assert sch.mod is before


# TVM 0.27 after reindex_cache_read(C, 1, "shared", lambda i, j, k: (j, k)) and
# reindex_cache_write(C, 0, "local", lambda i, j, k: (i, j)) (T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def mm_reindex_cached(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"),
                      C: T.Buffer((16, 8), "float32")):
    B_shared = T.sblock_alloc_buffer((8, 32), scope="shared")
    C_local = T.sblock_alloc_buffer((16, 8), scope="local")
    for j, k in T.grid(8, 32):
        with T.sblock("B_shared"):
            vj, vk = T.axis.remap("SS", [j, k])
            B_shared[vj, vk] = B[vk, vj]
    for i, j, k in T.grid(16, 8, 32):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_local[vi, vj] = T.float32(0.0)
            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B_shared[vj, vk]
    for i, j in T.grid(16, 8):
        with T.sblock("C_local"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = C_local[vi, vj]


def test_reindex_cache_read_write_match_tvm():
    sch = Schedule(mm)
    sch.reindex_cache_read(sch.get_block("C"), 1, "shared", lambda i, j, k: (j, k))
    sch.reindex_cache_write(sch.get_block("C"), 0, "local", lambda i, j, k: (i, j))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], mm_reindex_cached)
    assert ('reindex_cache_read(block=b0, read_buffer_index=1, storage_scope="shared", '
            'index_map=lambda i, j, k: (j, k,))') in str(sch.trace)
    verify_trace_roundtrip(sch, mm)
    rng = np.random.default_rng(10)
    a, b = rng.random((16, 32), "float32"), rng.random((32, 8), "float32")
    c = np.zeros((16, 8), "float32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_reindex_cache_needs_a_map_keeping_the_accessed_iter_vars():
    sch = Schedule(mm)
    before = sch.mod
    with pytest.raises(ScheduleError, match="loses iter vars the access B"):
        sch.reindex_cache_read("C", 1, "shared", lambda i, j, k: (j,))
    assert sch.mod is before


def test_reindex_cache_with_computed_indices_sizes_the_cache_by_their_range():
    sch = Schedule(mm)
    sch.reindex_cache_read("C", 1, "shared", lambda i, j, k: (j * 32 + k, i // 4, i % 4))
    text = sch.mod["main"].script()
    assert 'B_shared = T.sblock_alloc_buffer((256, 4, 4), scope="shared")' in text
    assert "B_shared[vj * 32 + vk, vi // 4, vi % 4] = B[vk, vj]" in text
    verify_trace_roundtrip(sch, mm)
    rng = np.random.default_rng(11)
    a, b = rng.random((16, 32), "float32"), rng.random((32, 8), "float32")
    c = np.zeros((16, 8), "float32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@T.prim_func(s_tir=True)
def grouped(A: T.Buffer((8, 3), "float32"), W: T.Buffer((3, 4), "float32"),
            C: T.Buffer((8, 4), "float32")):
    for i, co, rc in T.grid(8, 4, 3):
        with T.sblock("C"):
            vi, vco, vrc = T.axis.remap("SSR", [i, co, rc])
            with T.init():
                C[vi, vco] = T.float32(0)
            C[vi, vco] = C[vi, vco] + A[vi, vco // 4 * 3 + vrc] * W[vrc, vco]


# TVM 0.27 after reindex(C, ("read", 0)) (T.reads/T.writes left out): `vco // 4` is 0 for
# vco in [0, 4), so vco is no dim of the reindexed buffer
@T.prim_func(s_tir=True)
def grouped_reindexed(A: T.Buffer((8, 3), "float32"), W: T.Buffer((3, 4), "float32"),
                      C: T.Buffer((8, 4), "float32")):
    A_reindex = T.sblock_alloc_buffer((8, 3))
    for ax0, ax1 in T.grid(8, 3):
        with T.sblock("A_reindex_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_reindex[v0, v1] = A[v0, v1]
    for i, co, rc in T.grid(8, 4, 3):
        with T.sblock("C"):
            vi, vco, vrc = T.axis.remap("SSR", [i, co, rc])
            with T.init():
                C[vi, vco] = T.float32(0.0)
            C[vi, vco] = C[vi, vco] + A_reindex[vi, vrc] * W[vrc, vco]


def test_reindex_drops_an_iter_var_its_domain_makes_vanish():
    sch = Schedule(grouped)
    sch.reindex(sch.get_block("C"), ("read", 0))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], grouped_reindexed)
    verify_trace_roundtrip(sch, grouped)
    rng = np.random.default_rng(11)
    a, w = rng.random((8, 3), "float32"), rng.random((3, 4), "float32")
    c = np.zeros((8, 4), "float32")
    tvm.build(sch.mod)(a, w, c)
    np.testing.assert_allclose(c, a @ w, rtol=1e-5)
