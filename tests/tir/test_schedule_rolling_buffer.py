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


@T.prim_func(s_tir=True)
def upscale(A: T.Buffer((14,), "int32"), C: T.Buffer((20,), "int32")):
    B = T.sblock_alloc_buffer((12,), "int32")
    for i, k in T.grid(12, 3):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi + vk]
    for i, k in T.grid(20, 3):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = 0
            C[vi] = C[vi] + B[vi // 2 + vk]


def _want_upscale(a):
    b = np.array([a[j:j + 3].sum() for j in range(12)])
    return np.array([sum(b[i // 2 + k] for k in range(3))
                     for i in range(20)])


def test_rolling_buffer_fractional_stride():
    # C's tile of 5 rows reads B from `i_0 * 5 // 2`, a window of 5 moving 2 or 3 per tile:
    # TVM matches `floordiv(v * s, d)` as a stride of ceil(s / d), an overlap of 2
    sch = Schedule(upscale)
    io, _ = sch.split(sch.get_loops("C")[0], [4, 5])
    sch.compute_at(sch.get_block("B"), io)
    sch.rolling_buffer(sch.get_block("B"), 0)
    text = sch.mod.script()
    assert "T.sblock_alloc_buffer((5,)" in text and "B[vi % 5]" in text
    assert "T.axis.opaque(12, i_0 * 5 // 2 + ax0)" in text
    assert "T.where(i_0 < 1 or ax0 >= 2)" in text
    verify_trace_roundtrip(sch, upscale)
    a = np.random.default_rng(2).integers(-50, 50, 14).astype("int32")
    for run in (lambda *x: tvm.build(sch.mod)(*x), lambda *x: interpret(sch.mod["main"], *x)):
        c = np.zeros(20, "int32")
        run(a, c)
        np.testing.assert_array_equal(c, _want_upscale(a))


@T.prim_func(s_tir=True)
def blur_2d(A: T.Buffer((10, 10), "int32"), C: T.Buffer((6, 6), "int32")):
    B = T.sblock_alloc_buffer((8, 8), "int32")
    for i, j, k in T.grid(8, 8, 3):
        with T.sblock("B"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                B[vi, vj] = 0
            B[vi, vj] = B[vi, vj] + A[vi + vk, vj + vk]
    for i, j, k in T.grid(6, 6, 3):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi + vk, vj + vk]


def test_rolling_buffer_rolls_along_the_outermost_tile_loop():
    # rows tiled by 3 (2 tiles), columns by 6 (1 tile, a unit loop compute_at sees as 0): only
    # the rows' window moves, so the rows roll
    sch = Schedule(blur_2d)
    i, j, _ = sch.get_loops("C")
    io, ii = sch.split(i, [2, 3])
    jo, ji = sch.split(j, [1, 6])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_block("B"), jo)
    sch.rolling_buffer(sch.get_block("B"), 0)
    text = sch.mod.script()
    assert "T.sblock_alloc_buffer((5, 8)" in text
    assert "T.axis.opaque(8, i_0 * 3 + ax0)" in text and "[ax1, ax2]" in text
    assert "T.where(i_0 < 1 or ax0 >= 2)" in text
    a = np.random.default_rng(3).integers(-50, 50, (10, 10)).astype("int32")
    b = sum(a[k:k + 8, k:k + 8] for k in range(3))
    for run in (lambda *x: tvm.build(sch.mod)(*x), lambda *x: interpret(sch.mod["main"], *x)):
        c = np.zeros((6, 6), "int32")
        run(a, c)
        np.testing.assert_array_equal(c, sum(b[k:k + 6, k:k + 6] for k in range(3)))


@T.prim_func(s_tir=True)
def shifted_blur(A: T.Buffer((20,), "int32"), C: T.Buffer((16,), "int32")):
    B = T.sblock_alloc_buffer((19,), "int32")
    for i, k in T.grid(19, 2):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = 0
            B[vi] = B[vi] + A[vi + vk]
    for i, k in T.grid(16, 3):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = 0
            C[vi] = C[vi] + B[vi + 1 + vk]


def test_rolling_buffer_refuses_a_window_start_it_cannot_read():
    # the window of B starts at `i_0 * 4 + 1`: not `v * s`, `v` or `(v * s) // d`
    sch = Schedule(shifted_blur)
    io, _ = sch.split(sch.get_loops("C")[0], [4, 4])
    sch.compute_at(sch.get_block("B"), io)
    before = sch.mod
    with pytest.raises(ScheduleError, match="block 'B' writes dim 0 of 'B' from"):
        sch.rolling_buffer(sch.get_block("B"), 0)
    assert sch.mod is before
