"""read_at / write_at: the staged program computes the product (numpy, compiled), the copy
block covers the tile the loop touches, illegal steps leave the module unchanged, the trace
replays."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def matmul(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"),
           C: T.Buffer((32, 32), "float32")):
    for i, j, k in T.grid(32, 32, 32):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def _tiled() -> tuple[Schedule, list]:
    sch = Schedule(matmul)
    i, j, k = sch.get_loops("C")
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    return sch, [i0, j0, k0]


def test_read_at_and_write_at_stage_tiles_and_compute_the_product():
    sch, (i0, j0, k0) = _tiled()
    stage = sch.read_at(k0, sch.get_block("C"), 0, "global")
    copy = sch.get(stage)
    assert dict(copy.annotations)["auto_copy"] is True
    assert [int(lp.extent) for lp in (copy.body, copy.body.body)] == [8, 4]  # the A tile
    sch.write_at(j0, sch.get_block("C"), 0, "global")
    verify_trace_roundtrip(sch, matmul)
    rng = np.random.default_rng(11)
    a, b = rng.random((2, 32, 32), "float32")
    c = np.zeros((32, 32), "float32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_read_at_needs_the_loop_above_the_block():
    sch = Schedule(matmul)
    other = Schedule(matmul)
    sch.split(sch.get_loops("C")[0], [4, 8])
    before = sch.mod
    with pytest.raises(ScheduleError):
        sch.read_at(other.get_loops("C")[0], sch.get_block("C"), 0, "global")
    assert sch.mod is before
