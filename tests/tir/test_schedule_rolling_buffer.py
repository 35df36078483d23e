"""rolling_buffer: a 3-tap producer computed at its consumer's tile loop keeps a window of
its buffer, indexed modulo the window, and skips what the previous tile already computed.
The result is checked against numpy (compiled and interpreted) and by replaying the trace;
illegal uses raise ScheduleError and leave the module unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def two_blurs(A: T.Buffer((3, 20), "int32"), C: T.Buffer((3, 16), "int32")):
    B = T.sblock_alloc_buffer((3, 18), "int32")
    for c in range(3):
        for i, k in T.grid(18, 3):
            with T.sblock("B"):
                vc, vi, vk = T.axis.remap("SSR", [c, i, k])
                with T.init():
                    B[vc, vi] = 0
                B[vc, vi] = B[vc, vi] + A[vc, vi + vk]
        for i, k in T.grid(16, 3):
            with T.sblock("C"):
                vc, vi, vk = T.axis.remap("SSR", [c, i, k])
                with T.init():
                    C[vc, vi] = 0
                C[vc, vi] = C[vc, vi] + B[vc, vi + vk]


def _want(a):
    b = sum(a[:, k:k + 18] for k in range(3))
    return sum(b[:, k:k + 16] for k in range(3))


def _tiled() -> Schedule:
    sch = Schedule(two_blurs)
    _, i, _ = sch.get_loops("C")
    io, _ = sch.split(i, [4, 4])
    sch.compute_at(sch.get_block("B"), io)
    return sch


def test_rolling_buffer_keeps_a_window_and_computes_the_same():
    sch = _tiled()
    sch.rolling_buffer(sch.get_block("B"), 0)
    text = sch.mod.script()
    assert "(3, 6)" in text  # the window: 4 new rows + 2 of overlap
    assert "% 6" in text and "T.axis.opaque" in text
    verify_trace_roundtrip(sch, two_blurs)
    a = np.random.default_rng(1).integers(-50, 50, (3, 20)).astype("int32")
    for run in (lambda *x: tvm.build(sch.mod)(*x), lambda *x: interpret(sch.mod["main"], *x)):
        c = np.zeros((3, 16), "int32")
        run(a, c)
        np.testing.assert_array_equal(c, _want(a))


def test_rolling_buffer_needs_a_shared_tile_loop():
    sch = Schedule(two_blurs)  # B is not computed at C's tile loop
    before = sch.mod
    with pytest.raises(ScheduleError, match="block 'B'.*(no loop it shares|do not overlap)"):
        sch.rolling_buffer(sch.get_block("B"), 0)
    assert sch.mod is before


def test_rolling_buffer_rejects_a_parameter_and_a_bad_index():
    sch = _tiled()
    before = sch.mod
    with pytest.raises(ScheduleError, match="'C' is a parameter"):
        sch.rolling_buffer(sch.get_block("C"), 0)
    with pytest.raises(ScheduleError, match="block 'B' writes 1 buffers; index 3"):
        sch.rolling_buffer(sch.get_block("B"), 3)
    assert sch.mod is before
