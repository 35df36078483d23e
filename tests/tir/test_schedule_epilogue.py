"""fuse_reduction_epilogue: the fused program against TVM 0.27's printed result and numpy,
rejected epilogues (scaled, used twice) leaving the module unchanged, the replayed trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.schedule import Schedule, ScheduleError


def _matmul_then(epilogue):
    """A matmul into `temp`, then `D = epilogue(temp, C)` (a prim_func built per case)."""

    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        temp = T.sblock_alloc_buffer((16, 16))
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("multiply"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    temp[vi, vj] = T.float32(0)
                temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vj, vk]
        for i, j in T.grid(16, 16):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = epilogue(temp[vi, vj], C[vi, vj])

    return func


# TVM 0.27's result for the bias add (its T.reads/T.writes left out): temp stays allocated
@T.prim_func(s_tir=True)
def fused_expected(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                   C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    temp = T.sblock_alloc_buffer((16, 16))  # noqa: F841 (left allocated, as TVM leaves it)
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("multiply"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                D[vi, vj] = C[vi, vj]
            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vj, vk]


def test_bias_add_folds_into_the_init():
    before = _matmul_then(lambda t, c: t + c)
    sch = Schedule(before)
    sch.fuse_reduction_epilogue("multiply", "add")
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], fused_expected)
    verify_trace_roundtrip(sch, before)
    rng = np.random.default_rng(6)
    a, b, c = rng.standard_normal((3, 16, 16)).astype("float32")
    d = np.zeros((16, 16), "float32")
    tvm.build(sch.mod)(a, b, c, d)
    np.testing.assert_allclose(d, a @ b.T + c, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("epilogue", [
    lambda t, c: t * c,                     # scaled: not an addend
    lambda t, c: t + t + c,                 # used twice
    lambda t, c: T.max(t + c, t * c),       # both sides of the max read the result
])
def test_epilogues_that_cannot_fold_are_rejected(epilogue):
    sch = Schedule(_matmul_then(epilogue))
    before = sch.mod
    with pytest.raises(ScheduleError, match="'add'"):
        sch.fuse_reduction_epilogue("multiply", "add")
    assert sch.mod is before


# TVM 0.27's result for the bias + ReLU epilogue (its T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def relu_expected(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                  C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    temp = T.sblock_alloc_buffer((16, 16))  # noqa: F841 (left allocated, as TVM leaves it)
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("multiply"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))
            D[vi, vj] = T.max(D[vi, vj] + A[vi, vk] * B[vj, vk], T.float32(0))


def test_a_relu_around_the_bias_add_is_applied_after_every_step():
    before = _matmul_then(lambda t, c: T.max(t + c, T.float32(0)))
    sch = Schedule(before)
    sch.fuse_reduction_epilogue("multiply", "add")
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], relu_expected)
    verify_trace_roundtrip(sch, before)
    rng = np.random.default_rng(7)
    a, b, c = rng.standard_normal((3, 16, 16)).astype("float32")
    d = np.zeros((16, 16), "float32")
    tvm.build(sch.mod)(a, b, c, d)
    want = np.maximum(c, 0)  # TVM's semantics: the ReLU after the init and each step
    for k in range(16):
        want = np.maximum(want + np.outer(a[:, k], b[:, k]), 0)
    np.testing.assert_allclose(d, want, rtol=1e-5, atol=1e-5)


def test_a_clip_in_either_operand_order_is_recognised():
    before = _matmul_then(lambda t, c: T.max(T.float32(-1), T.min(T.float32(1), t)))
    sch = Schedule(before)
    sch.fuse_reduction_epilogue("multiply", "add")
    verify_trace_roundtrip(sch, before)
    rng = np.random.default_rng(8)
    a, b, c = rng.standard_normal((3, 16, 16)).astype("float32")
    d = np.zeros((16, 16), "float32")
    tvm.build(sch.mod)(a, b, c, d)
    want = np.zeros((16, 16), "float32")
    for k in range(16):
        want = np.clip(want + np.outer(a[:, k], b[:, k]), -1, 1)
    np.testing.assert_allclose(d, want, rtol=1e-5, atol=1e-5)
