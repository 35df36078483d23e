"""cache_inplace: a block updating a buffer in place works on a staged copy (copy-in before,
copy-out after, under the block's loops). Checked against numpy compiled and interpreted, by
trace replay, and for the errors: a buffer the block only reads, an index out of range."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def scale_rows(X: T.Buffer((4, 8), "float32"), s: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("scale"):
            vi = T.axis.remap("S", [i])
            for j in range(8):
                X[vi, j] = X[vi, j] * s[vi] + T.float32(1)


def test_cache_inplace_stages_the_buffer_around_the_block():
    sch = Schedule(scale_rows)
    copy_in, copy_out = sch.cache_inplace("scale", 0, "local")
    assert sch.get(copy_in).name_hint == "X_local"
    assert [b.name for b in sch.get(sch.get_block("root")).alloc_buffers] == ["X_local"]
    # both stages sit under the block's loop, around it
    loop = sch.get(sch.get_loops(copy_in)[0])
    assert sch.get(sch.get_loops(copy_out)[0]) is loop
    assert sch.get(sch.get_loops("scale")[0]) is loop
    verify_trace_roundtrip(sch, scale_rows)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 8)).astype("float32")
    s = rng.standard_normal(4).astype("float32")
    for run in (lambda *a: tvm.build(sch.mod)(*a), lambda *a: interpret(sch.mod["main"], *a)):
        got = x.copy()
        run(got, s)
        np.testing.assert_allclose(got, x * s[:, None] + 1, rtol=1e-6)


def test_cache_inplace_rejects_a_buffer_only_read():
    sch = Schedule(scale_rows)
    before = sch.mod
    with pytest.raises(ScheduleError, match="block 'scale' reads 's' but does not write it"):
        sch.cache_inplace("scale", 1, "local")
    with pytest.raises(ScheduleError, match="index 5 is out of range"):
        sch.cache_inplace("scale", 5, "local")
    assert sch.mod is before
