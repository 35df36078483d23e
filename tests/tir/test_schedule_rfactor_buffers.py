"""rfactor, the dataflow queries and the buffer/annotation primitives of tir.Schedule: the
printed result against what TVM 0.27 prints for the same steps, the scheduled program against
numpy and the reference interpreter, illegal steps raising ScheduleError with the module left
as it was, and the trace replayed (verify_trace_roundtrip)."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(7)


@T.prim_func(s_tir=True)
def rowsum(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"),
           C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 32):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk] * B[vi, vk]


# what TVM 0.27 prints after split(k, [None, 8]) and rfactor(k_1, 0) (reads/writes dropped)
@T.prim_func(s_tir=True)
def rowsum_rf_expected(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"),
                       C: T.Buffer((16,), "float32")):
    C_rf = T.sblock_alloc_buffer((8, 16))
    for i, k_0, k_1 in T.grid(16, 4, 8):
        with T.sblock("C_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            with T.init():
                C_rf[vk_1, vi] = T.float32(0.0)
            C_rf[vk_1, vi] = C_rf[vk_1, vi] + A[vi, vk_0 * 8 + vk_1] * B[vi, vk_0 * 8 + vk_1]
    for i, k_1 in T.grid(16, 8):
        with T.sblock("C"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + C_rf[vk_1, vi]


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


def _rowsum_args():
    a, b = RNG.standard_normal((2, 16, 32)).astype("float32")
    return [a, b, np.zeros(16, "float32")], (a * b).sum(1)


def _chain_args():
    a = RNG.standard_normal((8, 12)).astype("float32")
    return [a, np.zeros((8, 12), "float32")], a * 2 + 1


def _check_runs(sch: Schedule, make_args) -> None:
    """The scheduled program computes what numpy computes, compiled and interpreted."""
    args, want = make_args()
    f = tvm.build(sch.mod)
    f(*args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-5, atol=1e-5)
    args, want = make_args()
    interpret(sch.mod["main"], *args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-5, atol=1e-5)


def test_rfactor_matches_tvm_and_computes_the_sum():
    sch = Schedule(rowsum)
    _, k = sch.get_loops(sch.get_block("C"))
    _, k1 = sch.split(k, [None, 8])
    rf = sch.rfactor(k1, 0)
    assert sch.get(rf).name_hint == "C_rf"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], rowsum_rf_expected)
    verify_trace_roundtrip(sch, rowsum)
    _check_runs(sch, _rowsum_args)


def test_rfactor_of_the_whole_reduction_is_a_plain_store_and_runs_parallel():
    sch = Schedule(rowsum)
    i, k = sch.get_loops("C")
    rf = sch.rfactor(k, 1)
    assert sch.get(rf).init is None  # every reduction loop became spatial, as in TVM
    sch.parallel(sch.get_loops(rf)[0])
    verify_trace_roundtrip(sch, rowsum)
    _check_runs(sch, _rowsum_args)


@pytest.mark.parametrize("which", ["spatial", "factor_axis"])
def test_rfactor_illegal_steps_leave_the_module_unchanged(which):
    sch = Schedule(rowsum)
    i, k = sch.get_loops("C")
    before = sch.mod
    with pytest.raises(ScheduleError, match="C|k"):
        if which == "spatial":
            sch.rfactor(i, 0)  # i binds a spatial iter var
        else:
            sch.rfactor(k, 3)
    assert sch.mod is before


def test_rfactor_needs_a_reduction_block():
    sch = Schedule(chain)
    with pytest.raises(ScheduleError, match="'B' is not a reduction block"):
        sch.rfactor(sch.get_loops("B")[1], 0)


def test_producers_consumers_and_output_blocks():
    sch = Schedule(chain)
    b, c = sch.get_block("B"), sch.get_block("C")
    assert [sch.get(x).name_hint for x in sch.get_producers(c)] == ["B"]
    assert [sch.get(x).name_hint for x in sch.get_consumers(b)] == ["C"]
    assert sch.get_producers(b) == [] and sch.get_consumers(c) == []
    assert [sch.get(x).name_hint for x in sch.get_output_blocks("root")] == ["C"]


def test_set_scope_and_set_dtype_rewrite_the_buffer():
    sch = Schedule(chain)
    sch.set_scope("B", "B", "shared")
    sch.unsafe_set_dtype("B", 0, "float64")
    block = sch.get(sch.get_block("B"))
    buf = block.body.buffer
    assert (buf.scope, buf.dtype) == ("shared", "float64")
    verify_trace_roundtrip(sch, chain)
    _check_runs(sch, _chain_args)


@pytest.mark.parametrize("call", [
    lambda s: s.set_scope("C", 0, "shared"),        # C is a parameter
    lambda s: s.set_scope("B", 1, "shared"),        # B writes one buffer
    lambda s: s.set_scope("B", 0, "no_such_scope"),
    lambda s: s.unsafe_set_dtype("B", 0, "flaot32"),
    lambda s: s.storage_align("B", 0, 2, 16, 1),    # B has two dims
    lambda s: s.storage_align("B", 0, 0, 16, 16),   # offset must be below factor
    lambda s: s.unannotate("B", "no_such_key"),
])
def test_buffer_primitives_reject_illegal_steps(call):
    sch = Schedule(chain)
    before = sch.mod
    with pytest.raises(ScheduleError):
        call(sch)
    assert_structural_equal(sch.mod, before)


def test_storage_align_annotation_as_tvm_prints_it_and_unannotate():
    sch = Schedule(chain)
    sch.storage_align("B", 0, axis=0, factor=16, offset=1)
    anns = dict(sch.get(sch.get_block("B")).annotations)
    assert [[int(x) for x in a] for a in anns["buffer_dim_align"]] == [[0, 0, 16, 1]]
    # TVM 0.27 prints T.sblock_attr; older TVM (and tvmlite's printer) T.block_attr
    assert 'block_attr({"buffer_dim_align": [[0, 0, 16, 1]]})' in sch.mod.script()
    _check_runs(sch, _chain_args)
    sch.unannotate("B", "buffer_dim_align")
    assert_structural_equal(sch.mod["main"].body, Schedule(chain).mod["main"].body)


def test_add_unit_loop_wraps_a_block_and_a_loop():
    sch = Schedule(chain)
    u = sch.add_unit_loop("B")
    assert int(sch.get(u).extent) == 1 and sch.get(u).loop_var.name == "u"
    assert len(sch.get_loops("B")) == 3
    u2 = sch.add_unit_loop(sch.get_loops("C")[0])
    assert sch.get_loops("C")[0].var is sch.get(u2).loop_var
    verify_trace_roundtrip(sch, chain)
    _check_runs(sch, _chain_args)


def test_unsafe_hide_buffer_access_drops_a_declared_read():
    sch = Schedule(rowsum)
    sch.unsafe_hide_buffer_access("C", "read", [1])
    block = sch.get(sch.get_block("C"))
    assert [r.buffer.name for r in block.reads] == ["A"]  # B hidden; C is the accumulator
    from tvmlite.tir.schedule.analysis import read_buffers

    assert [b.name for b in read_buffers(block)] == ["A"]
    verify_trace_roundtrip(sch, rowsum)
    _check_runs(sch, _rowsum_args)  # hiding changes no computation
    before = sch.mod
    with pytest.raises(ScheduleError, match="index 3 is out of range"):
        sch.unsafe_hide_buffer_access("C", "read", [3])
    assert sch.mod is before
