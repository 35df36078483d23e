"""transform_layout and transform_block_layout (with lambdas and IndexMap): the printed result
against what TVM 0.27 prints for the same steps, numpy and the interpreter, legality errors
that leave the module unchanged, and the replayed trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir import IndexMap
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(3)


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


# TVM 0.27 after transform_layout("B", ("write", 0), lambda i, j: [j // 4, i, j % 4]) and
# transform_layout("B", "A", lambda i, j: [i * 12 + j]) (its T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def chain_relaid(A: T.Buffer((96,), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.sblock_alloc_buffer((3, 8, 4))
    for i, j in T.grid(8, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vj // 4, vi, vj % 4] = A[vi * 12 + vj] * T.float32(2.0)
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vj // 4, vi, vj % 4] + T.float32(1.0)


# TVM 0.27 after transform_block_layout("B", lambda i, j: [j, i])
@T.prim_func(s_tir=True)
def chain_block_transposed(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.sblock_alloc_buffer((8, 12))
    for ax0, ax1 in T.grid(12, 8):
        with T.sblock("B"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B[v1, v0] = A[v1, v0] * T.float32(2.0)
    for i, j in T.grid(8, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


def test_transform_layout_matches_tvm_and_computes_the_same():
    sch = Schedule(chain)
    sch.transform_layout("B", ("write", 0), lambda i, j: [j // 4, i, j % 4])
    sch.transform_layout("B", "A", lambda i, j: [i * 12 + j])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], chain_relaid)
    assert "index_map=lambda i, j: (j // 4, i, j % 4,)" in str(sch.trace)  # as TVM prints
    verify_trace_roundtrip(sch, chain)
    a = RNG.standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a.reshape(96), c)  # A is now a flat parameter
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)
    c2 = np.zeros((8, 12), "float32")
    interpret(sch.mod["main"], a.reshape(96), c2)
    np.testing.assert_allclose(c2, a * 2 + 1, rtol=1e-6)


def test_transform_layout_takes_an_index_map_object():
    sch = Schedule(chain)
    imap = IndexMap.from_func(lambda i, j: [j, i], index_dtype="int32")
    assert [int(d) for d in imap.map_shape([8, 12])] == [12, 8]
    sch.transform_layout("C", "B", imap)
    assert [int(d) for d in sch.get(sch.get_block("B")).body.buffer.shape] == [12, 8]


@pytest.mark.parametrize("index_map", [
    lambda i, j: [i, j // 5, j % 5],      # 12 is not a multiple of 5: padding needed
    lambda i: [i],                        # wrong number of indices
])
def test_transform_layout_rejects_maps_that_do_not_fit(index_map):
    sch = Schedule(chain)
    before = sch.mod
    with pytest.raises(ScheduleError, match="B"):
        sch.transform_layout("B", 0, index_map)
    assert sch.mod is before


def test_transform_block_layout_matches_tvm():
    sch = Schedule(chain)
    sch.transform_block_layout("B", lambda i, j: [j, i])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], chain_block_transposed)
    verify_trace_roundtrip(sch, chain)
    a = RNG.standard_normal((8, 12)).astype("float32")
    c = np.zeros((8, 12), "float32")
    tvm.build(sch.mod)(a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_transform_block_layout_needs_trivial_bindings():
    sch = Schedule(chain)
    sch.split(sch.get_loops("B")[1], [3, 4])
    before = sch.mod
    with pytest.raises(ScheduleError, match="'B'"):
        sch.transform_block_layout("B", lambda i, j: [j, i])
    assert_structural_equal(sch.mod, before)


@T.prim_func(s_tir=True)
def _row_sums(A: T.Buffer((4, 8, 6), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j, k in T.grid(4, 8, 6):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vj, vk]


# apache-tvm 0.27 after transform_block_layout("C", lambda i, j, k: (i * 8 + j, k))
# (T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def _row_sums_fused(A: T.Buffer((4, 8, 6), "float32"), C: T.Buffer((4, 8), "float32")):
    for ax0, ax1 in T.grid(32, 6):
        with T.sblock("C"):
            v0, v1 = T.axis.remap("SR", [ax0, ax1])
            with T.init():
                C[v0 // 8, v0 % 8] = T.float32(0.0)
            C[v0 // 8, v0 % 8] = C[v0 // 8, v0 % 8] + A[v0 // 8, v0 % 8, v1]


def test_transform_block_layout_fuses_iter_vars_as_tvm():
    sch = Schedule(_row_sums)
    sch.transform_block_layout("C", lambda i, j, k: (i * 8 + j, k))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], _row_sums_fused)
    verify_trace_roundtrip(sch, _row_sums)
    a = np.random.default_rng(13).random((4, 8, 6), dtype=np.float32)
    c = np.zeros((4, 8), np.float32)
    interpret(sch.mod["main"], a, c)
    np.testing.assert_allclose(c, a.sum(axis=2), rtol=1e-5)


@pytest.mark.parametrize("index_map", [
    lambda i, j, k: (i * 6 + k, j),  # fuses a spatial with a reduce var
    lambda i, j, k: (i + j, k),      # not a dense mixed radix
])
def test_transform_block_layout_refuses_what_tvm_refuses(index_map):
    sch = Schedule(_row_sums)  # apache-tvm 0.27 raises ScheduleError on both maps
    before = sch.mod
    with pytest.raises(ScheduleError, match="'C'"):
        sch.transform_block_layout("C", index_map)
    assert sch.mod is before


def test_index_map_gives_the_last_indices_to_keyword_only_parameters():
    imap = IndexMap.from_func(lambda *idx, k: [*idx, k // 4, k % 4], ndim=3)
    assert len(imap.initial_indices) == 3
    # apache-tvm 0.27 maps (1, 2, 13) to [1, 2, 3, 1]
    assert [int(e) for e in imap.map_indices([1, 2, 13])] == [1, 2, 3, 1]


@pytest.mark.parametrize("func, shape, want", [
    (lambda i: [i % 16], [14], [16]),  # a split index spans its divisor, padded
    (lambda i: [i % 16, i // 16], [14], [16, 1]),
    (lambda i: [i // 4, i % 4], [14], [4, 4]),
    (lambda i: [(i + 1) // 8, (i + 1) % 8], [16], [3, 8]),
    (lambda i, j: [i // 2, j, i % 2], [5, 4], [3, 4, 2]),
])
def test_index_map_shape_as_tvm_splits_indices(func, shape, want):
    # the extents TVM 0.27's IndexMap.map_shape gives for the same maps
    imap = IndexMap.from_func(func, index_dtype="int32")
    assert [int(d) for d in imap.map_shape(shape)] == want
