"""decompose_reduction where TVM's tests push it: a predicate on a split reduction loop (it
stays on the update, leaves the init), the annotation kept on the init block, and the loop
that must sit above every reduction loop. Checked against numpy, compiled and interpreted."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def matvec(A: T.Buffer((16, 30), "float32"), x: T.Buffer((30,), "float32"),
           y: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 30):
        with T.sblock("y"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.sblock_attr({"note": 1})
            with T.init():
                y[vi] = T.float32(0)
            y[vi] = y[vi] + A[vi, vk] * x[vk]


def _check(mod):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 30)).astype("float32")
    x = rng.standard_normal(30).astype("float32")
    for run in (lambda *args: tvm.build(mod)(*args), lambda *args: interpret(mod["main"], *args)):
        y = np.full(16, 7, "float32")  # stale values: the init must overwrite them
        run(a, x, y)
        np.testing.assert_allclose(y, a @ x, rtol=1e-5, atol=1e-5)


def test_decompose_keeps_the_reduction_predicate_on_the_update_only():
    sch = Schedule(matvec)
    i, k = sch.get_loops("y")
    i0, i1 = sch.split(i, [4, 4])
    sch.split(k, [None, 8])  # 32 > 30: the update gets a predicate on k
    init = sch.decompose_reduction("y", i1)
    assert "T.where" not in sch.mod.script().split('sblock("y_update")')[0]  # init: none
    assert "T.where" in sch.mod.script().split('sblock("y_update")')[1]
    assert dict(sch.get(init).annotations) == {"note": 1}
    verify_trace_roundtrip(sch, matvec)
    _check(sch.mod)


def test_decompose_below_a_reduction_loop_is_rejected():
    sch = Schedule(matvec)
    i, k = sch.get_loops("y")
    sch.reorder(k, i)
    before = sch.mod
    with pytest.raises(ScheduleError, match="loop 'i' must be higher.*block 'y'"):
        sch.decompose_reduction("y", i)
    assert sch.mod is before
