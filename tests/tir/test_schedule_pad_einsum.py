"""pad_einsum: the padded matmul against TVM 0.27's printed result and numpy, illegal
paddings leaving the module unchanged, and the replayed trace."""

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
def staged_matmul(A: T.Buffer((128, 127), "float32"), B: T.Buffer((127, 127), "float32"),
                  C: T.Buffer((128, 127), "float32")):
    A_shared = T.sblock_alloc_buffer((128, 127), "float32", scope="shared")
    B_shared = T.sblock_alloc_buffer((127, 127), "float32", scope="shared")
    C_shared = T.sblock_alloc_buffer((128, 127), "float32", scope="shared")
    for i0, i1 in T.grid(128, 127):
        with T.sblock("A"):
            i, j = T.axis.remap("SS", [i0, i1])
            A_shared[i, j] = A[i, j]
    for i0, i1 in T.grid(127, 127):
        with T.sblock("B"):
            i, j = T.axis.remap("SS", [i0, i1])
            B_shared[i, j] = B[i, j]
    for i0, i1, i2 in T.grid(128, 127, 127):
        with T.sblock("C_shared"):
            i, j, k = T.axis.remap("SSR", [i0, i1, i2])
            with T.init():
                C_shared[i, j] = T.float32(0)
            C_shared[i, j] = C_shared[i, j] + A_shared[i, k] * B_shared[k, j]
    for i0, i1 in T.grid(128, 127):
        with T.sblock("C"):
            i, j = T.axis.remap("SS", [i0, i1])
            C[i, j] = C_shared[i, j]


# TVM 0.27 after pad_einsum(C_shared, [32, 32, 32]) (its T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def staged_matmul_padded(A: T.Buffer((128, 127), "float32"),
                         B: T.Buffer((127, 127), "float32"),
                         C: T.Buffer((128, 127), "float32")):
    A_shared_padded = T.sblock_alloc_buffer([128, 128], dtype="float32", scope="shared")
    B_shared_padded = T.sblock_alloc_buffer([128, 128], dtype="float32", scope="shared")
    C_shared_padded = T.sblock_alloc_buffer([128, 128], dtype="float32", scope="shared")
    for i0, i1 in T.grid(128, 128):
        with T.sblock("A"):
            i, j = T.axis.remap("SS", [i0, i1])
            A_shared_padded[i, j] = T.if_then_else(j < 127, A[i, j], T.float32(0))
    for i0, i1 in T.grid(128, 128):
        with T.sblock("B"):
            i, j = T.axis.remap("SS", [i0, i1])
            B_shared_padded[i, j] = T.if_then_else(i < 127 and j < 127, B[i, j], T.float32(0))
    for i0, i1, i2 in T.grid(128, 128, 128):
        with T.sblock("C_shared"):
            i, j, k = T.axis.remap("SSR", [i0, i1, i2])
            with T.init():
                C_shared_padded[i, j] = T.float32(0)
            C_shared_padded[i, j] = (C_shared_padded[i, j]
                                     + A_shared_padded[i, k] * B_shared_padded[k, j])
    for i0, i1 in T.grid(128, 127):
        with T.sblock("C"):
            i, j = T.axis.remap("SS", [i0, i1])
            C[i, j] = C_shared_padded[i, j]


def test_pad_einsum_matches_tvm_and_computes_the_product():
    sch = Schedule(staged_matmul)
    sch.pad_einsum(sch.get_block("C_shared"), [32, 32, 32])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], staged_matmul_padded)
    verify_trace_roundtrip(sch, staged_matmul)
    rng = np.random.default_rng(9)
    a, b = rng.random((128, 127), "float32"), rng.random((127, 127), "float32")
    c = np.zeros((128, 127), "float32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4)


@pytest.mark.parametrize("block, padding, message", [
    ("C_shared", [32, 32], "padding"),
    ("C_shared", [32, 0, 32], "padding"),
    ("C", [32, 32], "'C', a parameter"),
])
def test_pad_einsum_rejects_what_it_cannot_pad(block, padding, message):
    sch = Schedule(staged_matmul)
    before = sch.mod
    with pytest.raises(ScheduleError, match=message):
        sch.pad_einsum(block, padding)
    assert sch.mod is before
