"""compute_inline / reverse_compute_inline: results against numpy through the reference
interpreter, TVM's printed forms for folded loads, and illegal steps that leave the module as
it was."""

from __future__ import annotations

import numpy as np
import pytest

from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(7)


@T.prim_func
def reshape_then_copy(A: T.Buffer((16, 8), "float32"), C: T.Buffer((2, 8, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i, j, k in T.grid(2, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi * 8 + vj, vk] + T.float32(1)


@T.prim_func
def flat_split(A: T.Buffer((8, 8), "float32"), C: T.Buffer((4, 4, 4), "float32")):
    B = T.alloc_buffer((8, 8), "float32")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] - T.float32(1)
    for i, j, k in T.grid(4, 4, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[(vi * 16 + vj * 4 + vk) // 8, (vi * 16 + vj * 4 + vk) % 8]


@T.prim_func
def sliced(A: T.Buffer((10, 4), "float32"), C: T.Buffer((7, 4), "float32")):
    B = T.alloc_buffer((10, 4), "float32")
    for i, j in T.grid(10, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * A[vi, vj]
    for i, j in T.grid(7, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj]


@T.prim_func
def two_loads(A: T.Buffer((8,), "float32"), C: T.Buffer((6,), "float32")):
    B = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
    for i in range(6):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            T.reads(B[vi:vi + 3])
            T.writes(C[vi])
            C[vi] = B[vi] + B[vi + 2]


def _run(func, *arrays):
    outs = [np.array(a) for a in arrays]
    interpret(func, *outs)
    return outs


def test_reverse_inline_of_a_split_load_matches_numpy():
    a = RNG.standard_normal((16, 8)).astype("float32")
    want = (a * 3 + 1).reshape(2, 8, 8)
    sch = Schedule(reshape_then_copy)
    sch.reverse_compute_inline(sch.get_block("C"))
    text = sch.mod["main"].script()
    assert "C[vi // 8, vi % 8, vj]" in text  # TVM's form of the solved indices
    got = _run(sch.mod["main"], a, np.zeros((2, 8, 8), "float32"))[1]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_reverse_inline_of_a_flattened_load_matches_numpy():
    a = RNG.standard_normal((8, 8)).astype("float32")
    sch = Schedule(flat_split)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "(vj + vi * 8) // 16" in sch.mod["main"].script()
    got = _run(sch.mod["main"], a, np.zeros((4, 4, 4), "float32"))[1]
    np.testing.assert_allclose(got, (a - 1).reshape(4, 4, 4), rtol=1e-6)


def test_reverse_inline_into_a_larger_producer_adds_a_predicate():
    a = RNG.standard_normal((10, 4)).astype("float32")
    sch = Schedule(sliced)
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "T.where(i < 7)" in sch.mod["main"].script()
    got = _run(sch.mod["main"], a, np.zeros((7, 4), "float32"))[1]
    np.testing.assert_allclose(got, (a * a)[:7], rtol=1e-6)


def test_compute_inline_rewrites_declared_reads_and_drops_the_root():
    a = RNG.standard_normal(8).astype("float32")
    sch = Schedule(two_loads)
    sch.compute_inline(sch.get_block("B"))
    func = sch.mod["main"]
    assert "T.reads(A[vi:vi + 3])" in func.script()  # B[vi:vi + 3] read where B is A + 1
    assert type(func.body).__name__ == "For"  # the root block held only B: it is gone
    got = _run(func, a, np.zeros(6, "float32"))[1]
    np.testing.assert_allclose(got, (a + 1)[:6] + (a + 1)[2:], rtol=1e-6)


def test_reverse_inline_of_two_different_loads_is_refused_and_changes_nothing():
    sch = Schedule(two_loads)
    before = sch.mod["main"]
    with pytest.raises(ScheduleError, match="different indices"):
        sch.reverse_compute_inline(sch.get_block("C"))
    assert sch.mod["main"] is before


def test_reverse_inline_of_a_non_injective_load_is_refused():
    @T.prim_func
    def diag(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.alloc_buffer((8, 8), "float32")
        for i, j in T.grid(8, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
        for i, j in T.grid(8, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vi]

    sch = Schedule(diag)
    with pytest.raises(ScheduleError, match="one-to-one|not an exact split"):
        sch.reverse_compute_inline(sch.get_block("C"))
    assert structural_equal(sch.mod["main"], diag)


def test_compute_inline_refuses_a_buffer_used_through_its_pointer():
    @T.prim_func
    def opaque(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.alloc_buffer((8,), "float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
        for i in range(8):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                T.reads(B[0:8])
                T.writes(C[vi])
                T.evaluate(B.access_ptr("r"))
                C[vi] = B[vi]

    sch = Schedule(opaque)
    with pytest.raises(ScheduleError, match="opaquely"):
        sch.compute_inline(sch.get_block("B"))


def test_reverse_inline_into_a_fused_producer_guards_the_fused_loop():
    @T.prim_func
    def fused(A: T.Buffer((8, 8), "float32"), C: T.Buffer((7, 7), "float32")):
        B = T.alloc_buffer((8, 8), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(8, i // 8)
                vj = T.axis.spatial(8, i % 8)
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(7, 7):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj]

    a = RNG.standard_normal((8, 8)).astype("float32")
    sch = Schedule(fused)
    sch.reverse_compute_inline(sch.get_block("C"))
    # the last element kept is (6, 6) = 6 * 8 + 6, so i < 55 (with i % 8 < 7)
    assert "T.where(i < 55 and i % 8 < 7)" in sch.mod["main"].script()
    got = _run(sch.mod["main"], a, np.zeros((7, 7), "float32"))[1]
    np.testing.assert_allclose(got, (a + 1)[:7, :7], rtol=1e-6)


def test_reverse_inline_keeps_refusing_a_consumer_predicate_on_data():
    @T.prim_func
    def masked(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.alloc_buffer((8,), "float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
        for i in range(8):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                T.where(A[i] > T.float32(0))
                C[vi] = B[vi]

    sch = Schedule(masked)
    with pytest.raises(ScheduleError, match="predicate beyond its domain"):
        sch.reverse_compute_inline(sch.get_block("C"))


def test_reverse_inline_drops_a_split_guard_of_the_consumer():
    a = RNG.standard_normal((10, 4)).astype("float32")
    sch = Schedule(sliced)
    sch.split(sch.get_loops(sch.get_block("C"))[0], [None, 4])  # 7 rows: guard i0 * 4 + i1 < 7
    sch.reverse_compute_inline(sch.get_block("C"))
    got = _run(sch.mod["main"], a, np.zeros((7, 4), "float32"))[1]
    np.testing.assert_allclose(got, (a * a)[:7], rtol=1e-6)


def test_compute_inline_refuses_a_block_writing_one_element_many_times():
    @T.prim_func
    def last_wins(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
        B = T.alloc_buffer((4,), "float32")
        for i, j in T.grid(4, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi] = A[vi, vj]
        for i in range(4):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = B[vi]

    sch = Schedule(last_wins)
    with pytest.raises(ScheduleError, match="several values of iter var 'vj'"):
        sch.compute_inline(sch.get_block("B"))
