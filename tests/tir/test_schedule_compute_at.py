"""compute_at / reverse_compute_at: windows solved from the consumers' (producers') regions,
guards where a window leaves a domain, TVM's `index` insertion points; results against numpy
through the reference interpreter, and TVM's printed forms."""

from __future__ import annotations

import numpy as np
import pytest

from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(11)


@T.prim_func
def halo(X: T.Buffer((16,), "float32"), Y: T.Buffer((16,), "float32")):
    P = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("P"):
            vi = T.axis.remap("S", [i])
            P[vi] = X[vi] * T.float32(2)
    for i, k in T.grid(16, 3):
        with T.block("Y"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                Y[vi] = T.float32(0)
            Y[vi] = Y[vi] + T.if_then_else(1 <= vi + vk and vi + vk < 17,
                                           P[vi + vk - 1], T.float32(0))


@T.prim_func
def repeat(x: T.Buffer((4,), "float32"), y: T.Buffer((64,), "float32")):
    t = T.alloc_buffer((4,), "float32")
    for i in range(4):
        with T.block("t"):
            vi = T.axis.remap("S", [i])
            t[vi] = x[vi] + T.float32(1)
    for i in range(64):
        with T.block("y"):
            vi = T.axis.remap("S", [i])
            y[vi] = t[vi // 16]


@T.prim_func
def flatten(X: T.Buffer((8, 8), "float32"), Y: T.Buffer((64,), "float32")):
    t = T.alloc_buffer((8, 8), "float32")
    for i, j in T.grid(8, 8):
        with T.block("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            t[vi, vj] = X[vj, vi] + T.float32(1)
    for i in range(64):
        with T.block("y"):
            vi = T.axis.remap("S", [i])
            Y[vi] = t[vi // 8, vi % 8]


@T.prim_func
def two_inputs(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"),
               C: T.Buffer((8,), "float32")):
    a = T.alloc_buffer((8,), "float32")
    b = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("a"):
            vi = T.axis.remap("S", [i])
            a[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("b"):
            vi = T.axis.remap("S", [i])
            b[vi] = B[vi] * T.float32(2)
    for i in range(8):
        with T.block("c"):
            vi = T.axis.remap("S", [i])
            C[vi] = a[vi] - b[vi]


def _run(func, *arrays):
    outs = [np.array(a) for a in arrays]
    interpret(func, *outs)
    return outs


def test_compute_at_a_halo_gets_guards_and_computes_the_same():
    x = RNG.standard_normal(16).astype("float32")
    p = np.pad(x * 2, 1)
    want = p[:-2] + p[1:-1] + p[2:]
    sch = Schedule(halo)
    i0, _ = sch.split(sch.get_loops(sch.get_block("Y"))[0], [None, 4])
    sch.compute_at(sch.get_block("P"), i0)
    text = sch.mod["main"].script()
    assert "for ax0 in range(6)" in text  # 4 outputs need 4 + 2 inputs
    # TVM's form of the guards: constants moved to the right, the always-true ones left out
    assert "T.where(i_0 * 4 + ax0 >= 1 and i_0 * 4 + ax0 < 17)" in text
    got = _run(sch.mod["main"], x, np.zeros(16, "float32"))[1]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_compute_at_divides_the_window_of_a_floor_division():
    x = RNG.standard_normal(4).astype("float32")
    sch = Schedule(repeat)
    i0, _ = sch.split(sch.get_loops(sch.get_block("y"))[0], [8, 8])
    sch.compute_at(sch.get_block("t"), i0)
    assert "vi = T.axis.spatial(4, i_0 // 2)" in sch.mod["main"].script()
    got = _run(sch.mod["main"], x, np.zeros(64, "float32"))[1]
    np.testing.assert_allclose(got, np.repeat(x + 1, 16), rtol=1e-6)


def test_reverse_compute_at_solves_a_split_load_for_the_consumer():
    x = RNG.standard_normal((8, 8)).astype("float32")
    sch = Schedule(flatten)
    sch.reverse_compute_at(sch.get_block("y"), sch.get_loops(sch.get_block("t"))[0])
    text = sch.mod["main"].script()
    assert "for ax0 in range(8)" in text and "T.axis.spatial(64, i * 8 + ax0)" in text
    got = _run(sch.mod["main"], x, np.zeros(64, "float32"))[1]
    np.testing.assert_allclose(got, (x.T + 1).reshape(-1), rtol=1e-6)


@pytest.mark.parametrize("index, order", [(-1, ["b", "a", "c"]), (-2, ["a", "b", "c"])])
def test_compute_at_index_picks_the_insertion_point(index, order):
    a, b = RNG.standard_normal((2, 8)).astype("float32")
    sch = Schedule(two_inputs)
    loop = sch.get_loops(sch.get_block("c"))[0]
    sch.compute_at(sch.get_block("b"), loop)
    sch.compute_at(sch.get_block("a"), loop, index=index)
    loop_node = sch.get(sch.get_loops(sch.get_block("c"))[0])
    names = [s.block.name for s in loop_node.body.seq]
    assert names == order
    last = [inst for inst in sch.trace.insts if inst.name == "compute_at"][-1]
    assert last.kwargs["index"] == index  # the trace replays it
    got = _run(sch.mod["main"], a, b, np.zeros(8, "float32"))[2]
    np.testing.assert_allclose(got, (a + 1) - b * 2, rtol=1e-6)


def test_compute_at_index_out_of_range_is_refused_and_changes_nothing():
    sch = Schedule(two_inputs)
    loop = sch.get_loops(sch.get_block("c"))[0]
    sch.compute_at(sch.get_block("b"), loop)
    before = sch.mod["main"]
    with pytest.raises(ScheduleError, match="index 2 is not a valid place"):
        sch.compute_at(sch.get_block("a"), loop, index=2)
    assert sch.mod["main"] is before


def test_compute_at_of_a_block_whose_consumer_is_outside_the_loop_is_refused():
    sch = Schedule(two_inputs)
    with pytest.raises(ScheduleError, match="all the consumers"):
        sch.compute_at(sch.get_block("a"), sch.get_loops(sch.get_block("b"))[0])


def test_compute_at_under_a_symbolic_loop_proves_the_window_in_bounds():
    @T.prim_func
    def tiled(x: T.handle, y: T.handle, n: T.int64):
        X = T.match_buffer(x, (n * 4,), "float32")
        Y = T.match_buffer(y, (n * 4,), "float32")
        B = T.alloc_buffer((n * 4,), "float32")
        for i in range(n * 4):
            with T.block("B"):
                vi = T.axis.spatial(n * 4, i)
                B[vi] = X[vi] + T.float32(1)
        for k_0, k_1 in T.grid(n, T.int64(4)):
            with T.block("Y"):
                vk = T.axis.spatial(n * 4, k_0 * 4 + k_1)
                Y[vk] = B[vk] * T.float32(2)

    sch = Schedule(tiled)
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("Y"))[0])
    text = sch.mod["main"].script()
    # k_0 * 4 + ax0 < n * 4 for k_0 < n: TVM proves it, so no T.where
    assert "k_0 * T.int64(4) + ax0" in text and "T.where" not in text
    x = RNG.standard_normal(12).astype("float32")
    got = _run(sch.mod["main"], x, np.zeros(12, "float32"), 3)[1]
    np.testing.assert_allclose(got, (x + 1) * 2, rtol=1e-6)


def test_reverse_compute_at_refuses_a_consumer_reading_ahead():
    @T.prim_func
    def ahead(A: T.Buffer((9,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.alloc_buffer((9,), "float32")
        for i in range(9):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
        for i in range(8):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = B[vi] + B[vi + 1]

    sch = Schedule(ahead)
    before = sch.mod["main"]
    # under B's loop, iteration i has produced B[i] only; C[i] also needs B[i + 1]
    with pytest.raises(ScheduleError, match="reads only the part of 'B'"):
        sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])
    assert sch.mod["main"] is before
