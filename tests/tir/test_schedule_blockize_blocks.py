"""blockize([b0, b1]): two sibling loop nests become one outer block whose iter vars come from
the first block's bindings; the result is checked against a hand-written expected function,
numpy (interpreted) and a trace replay; blocks that cannot share outer iter vars raise
ScheduleError and leave the module unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def two_columns(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"),
                C: T.Buffer((8, 8), "float32")):
    for m in range(6):
        for i in range(5):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, m])
                C[vi, vj] = A[vi, 0] * T.float32(3)
        for i, j in T.grid(3, 1):
            with T.sblock("B"):
                vi = T.axis.spatial(3, i)
                vj = T.axis.spatial(6, m + j)
                B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func(s_tir=True)
def two_columns_blockized(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"),
                          C: T.Buffer((8, 8), "float32")):
    for m in range(6):
        with T.sblock("outer_C_B_"):
            vi_o = T.axis.spatial(1, 0)  # noqa: F841
            vj_o = T.axis.spatial(6, m)
            for i in range(5):
                with T.sblock("C"):
                    vi_i = T.axis.spatial(5, i)
                    C[vi_i, vj_o] = A[vi_i, 0] * T.float32(3)
            for i, j in T.grid(3, 1):
                with T.sblock("B"):
                    vi_i = T.axis.spatial(3, i)
                    B[vi_i, vj_o] = A[vi_i, vj_o] * T.float32(2)


def test_blockize_blocks_shares_the_first_blocks_outer_iter_vars():
    sch = Schedule(two_columns)
    outer = sch.blockize([sch.get_block("C"), sch.get_block("B")], preserve_unit_iters=False)
    assert sch.get(outer).name == "outer_C_B_"
    assert_structural_equal(sch.mod["main"].body, two_columns_blockized.body)
    verify_trace_roundtrip(sch, two_columns)
    assert "sch.blockize(target=[b0, b1], preserve_unit_iters=False)" in str(sch.trace)
    a = np.random.default_rng(0).standard_normal((8, 8)).astype("float32")
    want = [np.zeros((8, 8), "float32") for _ in range(2)]
    got = [np.zeros((8, 8), "float32") for _ in range(2)]
    interpret(two_columns, a, *want)
    interpret(sch.mod["main"], a, *got)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w)


def test_blockize_blocks_keeps_unit_inner_iters_when_asked():
    sch = Schedule(two_columns)
    sch.blockize([sch.get_block("C"), sch.get_block("B")], preserve_unit_iters=True)
    text = sch.mod.script()
    # B's vj = m + j divides as vj_o + vj_i with vj_i over the unit loop j: it stays
    assert 'vi_i, vj_i = T.axis.remap("SS", [i, j])' in text
    assert "B[vi_i, vj_o + vj_i] = A[vi_i, vj_o + vj_i]" in text


@T.prim_func(s_tir=True)
def mismatched(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"),
               C: T.Buffer((8,), "float32")):
    for m in range(6):
        for i in range(5):
            with T.sblock("C"):
                vi = T.axis.spatial(5, i)
                C[vi] = A[vi, 0]
        for i in range(3):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, m])
                B[vi, vj] = A[vi, vj]
        for i in range(5):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, m])
                B[vi + 3, vj] = A[vi, vj]


def test_blockize_blocks_needs_the_same_outer_iter_vars():
    sch = Schedule(mismatched)
    before = sch.mod
    with pytest.raises(ScheduleError, match="block 'B' has 2 iter vars, the first block 1"):
        sch.blockize([sch.get_block("C"), sch.get_block("B")])
    assert sch.mod is before


def test_blockize_blocks_needs_siblings_side_by_side():
    sch = Schedule(mismatched)
    before = sch.mod
    with pytest.raises(ScheduleError, match="side by side"):
        sch.blockize([sch.get_block("C"), sch.get_block("D")])
    assert sch.mod is before
