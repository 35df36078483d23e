"""decompose_padding as TVM shapes it: the copy block's bounded iter vars start at 0 (the body
adds the lower bound back), a tiled binding is offset and guarded by a predicate, a unit loop
outside the nest binds as 0, and a condition true everywhere is no padding at all. Checked
against numpy, compiled and interpreted, and by trace replay."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def pad2(x: T.Buffer((1, 10), "int32"), y: T.Buffer((1, 14), "int32")):
    for b, i in T.grid(1, 14):
        with T.sblock("pad"):
            vb, vi = T.axis.remap("SS", [b, i])
            y[vb, vi] = T.if_then_else(2 <= vi and vi < 12, x[vb, vi - 2], 7)


def _check(mod):
    x = np.arange(10, dtype="int32").reshape(1, 10) + 1
    want = np.pad(x, ((0, 0), (2, 2)), constant_values=7)
    for run in (lambda *a: tvm.build(mod)(*a), lambda *a: interpret(mod["main"], *a)):
        y = np.zeros((1, 14), "int32")
        run(x, y)
        np.testing.assert_array_equal(y, want)


def test_direct_loop_shrinks_and_the_body_adds_the_offset():
    sch = Schedule(pad2)
    sch.decompose_padding("pad", sch.get_loops("pad")[1])
    text = sch.mod.script()
    assert "T.grid(1, 10)" not in text and "vb = T.axis.spatial(1, 0)" in text
    assert "y[vb, vi + 2] = x[vb, vi]" in text
    verify_trace_roundtrip(sch, pad2)
    _check(sch.mod)


def test_tiled_binding_is_offset_and_guarded():
    sch = Schedule(pad2)
    _, i = sch.get_loops("pad")
    sch.split(i, [2, 7])
    sch.decompose_padding("pad", sch.get_loops("pad")[2])
    assert "T.where" in sch.mod.script().split('sblock("pad")')[1]
    verify_trace_roundtrip(sch, pad2)
    _check(sch.mod)


def test_a_condition_true_everywhere_is_not_padding():
    @T.prim_func(s_tir=True)
    def copy(x: T.Buffer((8,), "int32"), y: T.Buffer((8,), "int32")):
        for i in range(8):
            with T.sblock("pad"):
                vi = T.axis.remap("S", [i])
                y[vi] = T.if_then_else(0 <= vi and vi < 8, x[vi], 0)

    sch = Schedule(copy)
    assert not sch.can_decompose_padding("pad", sch.get_loops("pad")[0])
    with pytest.raises(ScheduleError, match="block 'pad' holds on its whole domain"):
        sch.decompose_padding("pad", sch.get_loops("pad")[0])


@T.prim_func(s_tir=True)
def pad_then_sum(x: T.Buffer((4, 6), "int32"), out: T.Buffer((4,), "int32")):
    p = T.sblock_alloc_buffer((4, 8), "int32")
    for r in range(4):
        for j in range(8):
            with T.sblock("pad"):
                vr, vj = T.axis.remap("SS", [r, j])
                p[vr, vj] = T.if_then_else(1 <= vj and vj < 7, x[vr, vj - 1], 5)
        for j in range(8):
            with T.sblock("sum"):
                vr, vj = T.axis.remap("SR", [r, j])
                with T.init():
                    out[vr] = 0
                out[vr] = out[vr] + p[vr, vj] * (vj + 1)


def test_decompose_at_a_loop_shared_with_a_sibling_lifts_the_fill():
    sch = Schedule(pad_then_sum)
    r = sch.get_loops("pad")[0]
    sch.decompose_padding("pad", r)
    # the fill got its own copy of r; the copy stays beside "sum" under the original r
    assert len(sch.get_loops("pad_pad_const")) == 2
    assert sch.get(sch.get_loops("pad")[0]) is sch.get(sch.get_loops("sum")[0])
    verify_trace_roundtrip(sch, pad_then_sum)
    x = np.arange(24, dtype="int32").reshape(4, 6)
    padded = np.pad(x, ((0, 0), (1, 1)), constant_values=5)
    want = (padded * np.arange(1, 9)).sum(1).astype("int32")
    for run in (lambda *a: tvm.build(sch.mod)(*a), lambda *a: interpret(sch.mod["main"], *a)):
        out = np.zeros(4, "int32")
        run(x, out)
        np.testing.assert_array_equal(out, want)
