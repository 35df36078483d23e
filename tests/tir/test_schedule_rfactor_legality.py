"""rfactor beyond the one-block nest: a reduction whose outer loops it shares with sibling
blocks, a body that reaches its store through a let, and the legality checks TVM makes
(identity init, same element, dominant write, affine bindings, serial loops, stage pipeline).
Results are checked against numpy through the compiled program and the reference interpreter;
illegal steps must raise ScheduleError naming the block or loop and leave the module as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(3)


@T.prim_func(s_tir=True)
def shared_outer(A: T.Buffer((4, 8, 12), "float32"), D: T.Buffer((4, 8), "float32")):
    C = T.sblock_alloc_buffer((4, 8))
    for i in range(4):
        for j in range(8):
            for ko, ki in T.grid(3, 4):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    vk = T.axis.R(12, ko * 4 + ki)
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vj, vk]
        for j in range(8):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vi, vj] * T.float32(2)


@T.prim_func(s_tir=True)
def let_body(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            v: T.let[T.float32] = B[vi] + A[vi, vk] * A[vi, vk]
            B[vi] = v


def _run_both(mod, args, out_index, want):
    f = tvm.build(mod)
    copies = [a.copy() for a in args]
    f(*copies)
    np.testing.assert_allclose(copies[out_index], want, rtol=1e-5, atol=1e-5)
    copies = [a.copy() for a in args]
    interpret(mod["main"], *copies)
    np.testing.assert_allclose(copies[out_index], want, rtol=1e-5, atol=1e-5)


def test_rfactor_under_loops_shared_with_a_sibling_block():
    sch = Schedule(shared_outer)
    _, _, ko, _ = sch.get_loops("C")
    rf = sch.rfactor(ko, 2)
    # the rf nest copies every loop; the sibling D still sits under the (renamed) outer loop
    assert len(sch.get_loops(rf)) == 4
    assert len(sch.get_loops("C")) == 3
    assert len(sch.get_loops("D")) == 2
    assert sch.get(rf).same_as(sch.get(sch.get_block("C_rf")))
    verify_trace_roundtrip(sch, shared_outer)
    a = RNG.standard_normal((4, 8, 12)).astype("float32")
    _run_both(sch.mod, [a, np.zeros((4, 8), "float32")], 1, a.sum(2) * 2)


def test_rfactor_sees_through_a_let_in_the_body():
    sch = Schedule(let_body)
    _, k = sch.get_loops("B")
    _, k1 = sch.split(k, [None, 4])
    sch.rfactor(k1, 0)
    verify_trace_roundtrip(sch, let_body)
    a = RNG.standard_normal((8, 16)).astype("float32")
    _run_both(sch.mod, [a, np.zeros(8, "float32")], 1, (a * a).sum(1))


def _rowsum(init: str = "zero", parallel: bool = False, dominant: bool = True):
    """A row sum with one defect chosen by the arguments (the default has none)."""
    @T.prim_func(s_tir=True)
    def good(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 8):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func(s_tir=True)
    def bad_init(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 8):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(1)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func(s_tir=True)
    def bad_kind(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            for k in T.parallel(8):
                with T.sblock("B"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        B[vi] = T.float32(0)
                    B[vi] = B[vi] + A[vi, vk]

    @T.prim_func(s_tir=True)
    def bad_write(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
        for i, k in T.grid(8, 8):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi, vk] = T.float32(0)
                B[vi, vk] = B[vi, vk] + A[vi, vk]

    if init != "zero":
        return bad_init
    return bad_kind if parallel else good if dominant else bad_write


@pytest.mark.parametrize("defect, message", [
    ({"init": "one"}, "not the identity"),
    ({"parallel": True}, "loop 'k' of block 'B'.*not serial"),
    ({"dominant": False}, "block 'B' is not a reduction block"),
])
def test_rfactor_rejects_what_tvm_rejects_and_leaves_the_module(defect, message):
    sch = Schedule(_rowsum(**defect))
    before = sch.mod
    with pytest.raises(ScheduleError, match=message):
        sch.rfactor(sch.get_loops("B")[1], 0)
    assert sch.mod is before
    # the defect-free row sum factors fine
    ok = Schedule(_rowsum())
    ok.rfactor(ok.get_loops("B")[1], 0)
    a = RNG.standard_normal((8, 8)).astype("float32")
    _run_both(ok.mod, [a, np.zeros(8, "float32")], 1, a.sum(1))


def test_rfactor_rejects_a_consumer_reading_beyond_the_reduction():
    @T.prim_func(s_tir=True)
    def partial(A: T.Buffer((8, 8), "float32"), D: T.Buffer((16,), "float32")):
        C = T.sblock_alloc_buffer((16,))
        for i, k in T.grid(8, 8):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]
        for i in range(16):
            with T.sblock("D"):
                vi = T.axis.remap("S", [i])
                D[vi] = C[vi]

    sch = Schedule(partial)
    before = sch.mod
    with pytest.raises(ScheduleError, match="stage pipeline.*'D' reads 'C'"):
        sch.rfactor(sch.get_loops("C")[1], 0)
    assert sch.mod is before


@T.prim_func(s_tir=True)
def argmax_rows(idx: T.Buffer((4, 16), "int32"), val: T.Buffer((4, 16), "float32"),
                out_i: T.Buffer((4,), "int32"), out_v: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 16):
        with T.sblock("argmax"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                out_v[vi] = T.min_value("float32")
                out_i[vi] = -1
            vi_new: T.let[T.int32] = T.Select(out_v[vi] >= val[vi, vk], out_i[vi], idx[vi, vk])
            vv_new: T.let[T.float32] = T.Select(out_v[vi] >= val[vi, vk], out_v[vi],
                                                val[vi, vk])
            out_v[vi] = vv_new
            out_i[vi] = vi_new


def test_rfactor_of_an_argmax_keeps_both_accumulators():
    sch = Schedule(argmax_rows)
    _, k = sch.get_loops("argmax")
    _, k1 = sch.split(k, [None, 4])
    rf = sch.rfactor(k1, 1)
    allocs = [b.name for b in sch.get(sch.get_block("root")).alloc_buffers]
    assert allocs == ["out_i_rf", "out_v_rf"]  # in the order of the lets, as TVM puts them
    assert sch.get(rf).name_hint == "argmax_rf"
    verify_trace_roundtrip(sch, argmax_rows)
    val = RNG.permutation(64).astype("float32").reshape(4, 16)  # no ties
    idx = np.tile(np.arange(16, dtype="int32"), (4, 1))
    args = [idx, val, np.zeros(4, "int32"), np.zeros(4, "float32")]
    _run_both(sch.mod, args, 2, val.argmax(1))
    _run_both(sch.mod, args, 3, val.max(1))


def test_rfactor_of_a_tuple_reduction_needs_one_let_per_accumulator():
    @T.prim_func(s_tir=True)
    def no_let(idx: T.Buffer((4, 16), "int32"), val: T.Buffer((4, 16), "float32"),
               out_i: T.Buffer((4,), "int32"), out_v: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 16):
            with T.sblock("argmax"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    out_i[vi] = -1
                    out_v[vi] = T.min_value("float32")
                vi_new: T.let[T.int32] = T.Select(out_v[vi] >= val[vi, vk], out_i[vi],
                                                  idx[vi, vk])
                out_i[vi] = vi_new
                out_v[vi] = T.Select(out_v[vi] >= val[vi, vk], out_v[vi], val[vi, vk])

    sch = Schedule(no_let)
    before = sch.mod
    with pytest.raises(ScheduleError, match="block 'argmax' must store each accumulator"):
        sch.rfactor(sch.get_loops("argmax")[1], 0)
    assert sch.mod is before
