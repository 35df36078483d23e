"""decompose_padding / can_decompose_padding: the fill + in-bounds copy computes what the
padding block computed (numpy), the loops shrink to the in-bound range, illegal steps raise
ScheduleError and leave the module unchanged, and the trace replays."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def pad1d(x: T.Buffer(128, "int32"), y: T.Buffer(140, "int32")):
    for i in range(140):
        with T.sblock("block"):
            vi = T.axis.remap("S", [i])
            y[vi] = T.if_then_else(vi >= 6 and vi < 134, x[vi - 6], 0)


@T.prim_func(s_tir=True)
def pad2d(x: T.Buffer((6, 8), "float32"), y: T.Buffer((8, 10), "float32")):
    for i, j in T.grid(8, 10):
        with T.sblock("pad"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.if_then_else(1 <= vi and vi < 7 and 1 <= vj and vj < 9,
                                       x[vi - 1, vj - 1], T.float32(-1))


def test_decompose_padding_1d_shrinks_the_copy_loop():
    sch = Schedule(pad1d)
    block = sch.get_block("block")
    loop = sch.get_loops(block)[0]
    assert sch.can_decompose_padding(block, loop)
    fill = sch.decompose_padding(block, loop)
    assert sch.get(fill).name_hint == "block_pad_const"
    assert int(sch.get(sch.get_loops(block)[0]).extent) == 128  # TVM's in-bound range
    verify_trace_roundtrip(sch, pad1d)
    x = np.arange(128, dtype="int32")
    y = np.full(140, -7, "int32")
    tvm.build(sch.mod)(x, y)
    np.testing.assert_array_equal(y, np.pad(x, 6))


def test_decompose_padding_2d_at_the_inner_loop():
    sch = Schedule(pad2d)
    block = sch.get_block("pad")
    sch.decompose_padding(block, sch.get_loops(block)[1])
    x = np.random.default_rng(0).standard_normal((6, 8)).astype("float32")
    want = np.pad(x, 1, constant_values=-1)
    y = np.zeros((8, 10), "float32")
    tvm.build(sch.mod)(x, y)
    np.testing.assert_array_equal(y, want)
    y2 = np.zeros((8, 10), "float32")
    interpret(sch.mod["main"], x, y2)
    np.testing.assert_array_equal(y2, want)


def test_decompose_padding_rejects_a_block_that_is_no_padding():
    sch = Schedule(pad2d)
    block = sch.get_block("pad")
    sch.decompose_padding(block, sch.get_loops(block)[0])
    fill = sch.get_block("pad_pad_const")
    before = sch.mod
    assert not sch.can_decompose_padding(fill, sch.get_loops(fill)[0])
    with pytest.raises(ScheduleError, match="'pad_pad_const' is not a padding block"):
        sch.decompose_padding(fill, sch.get_loops(fill)[0])
    assert sch.mod is before
