"""annotate_buffer_access: the block declares the region `gen_new_ranges` gives for one of its
buffers (begin/end pairs or points, over its iter vars) and records which one it is, as TVM's
`explicit_read_region` / `explicit_write_region`; the computation does not change."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def blur(A: T.Buffer((18, 18), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + A[vi + 2, vj + 2]


@T.prim_func(s_tir=True)
def blur_annotated(A: T.Buffer((18, 18), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi:vi + 3, vj:vj + 3])
            T.writes(B[vi:vi + 1, vj])
            T.sblock_attr({"explicit_read_region": [0], "explicit_write_region": [0]})
            B[vi, vj] = A[vi, vj] + A[vi + 2, vj + 2]


def test_annotated_regions_replace_the_inferred_ones():
    sch = Schedule(blur)
    sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((vi, vi + 3), (vj, vj + 3)))
    sch.annotate_buffer_access("B", 0, "write", lambda vi, vj: ((vi, vi + 1), vj))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], blur_annotated)
    assert "gen_new_ranges=lambda vi, vj: (vi, vi + 3, vj, vj + 3,)" in str(sch.trace)
    verify_trace_roundtrip(sch, blur)
    a = np.random.default_rng(3).random((18, 18), "float32")
    b = np.zeros((16, 16), "float32")
    tvm.build(sch.mod)(a, b)
    np.testing.assert_allclose(b, a[:16, :16] + a[2:, 2:], rtol=1e-6)


def test_ranges_must_match_the_buffer():
    sch = Schedule(blur)
    before = sch.mod
    with pytest.raises(ScheduleError, match="buffer 'A' has 2 dims, got 1 ranges"):
        sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((vi, vi + 3),))
    with pytest.raises(ScheduleError, match=r"a range is \(begin, end\)"):
        sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((vi, vi, 3), vj))
    assert sch.mod is before


def test_parsed_slices_fold_a_constant_extent():
    @T.prim_func(s_tir=True)
    def f(x: T.Buffer((64,), "float32"), y: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                T.reads(x[vi * 2 - 3:vi * 2 + 3])
                T.writes(y[vi])
                y[vi] = x[vi]

    block = f.body.body.block if hasattr(f.body, "body") and hasattr(f.body.body, "block") \
        else f.body.block.body.body.block
    extent = block.reads[0].region[0].extent
    assert isinstance(extent, T.IntImm) and extent.value == 6
