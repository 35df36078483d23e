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


# TVM 0.27 after pad_einsum(C_shared, [32, 32, 32]) (its T.reads/T.writes left out): every
# buffer accessed along a padded iter var gets a `_pad` copy, filled before / copied back after
@T.prim_func(s_tir=True)
def staged_matmul_padded(A: T.Buffer((128, 127), "float32"),
                         B: T.Buffer((127, 127), "float32"),
                         C: T.Buffer((128, 127), "float32")):
    A_shared = T.sblock_alloc_buffer((128, 127), scope="shared")
    B_shared = T.sblock_alloc_buffer((127, 127), scope="shared")
    C_shared = T.sblock_alloc_buffer((128, 127), scope="shared")
    A_shared_pad = T.sblock_alloc_buffer((128, 128), scope="shared")
    B_shared_pad = T.sblock_alloc_buffer((128, 128), scope="shared")
    C_shared_pad = T.sblock_alloc_buffer((128, 128), scope="shared")
    for i0, i1 in T.grid(128, 127):
        with T.sblock("A"):
            i, j = T.axis.remap("SS", [i0, i1])
            A_shared[i, j] = A[i, j]
    for i0, i1 in T.grid(127, 127):
        with T.sblock("B"):
            i, j = T.axis.remap("SS", [i0, i1])
            B_shared[i, j] = B[i, j]
    for i0, i1 in T.grid(128, 128):
        with T.sblock("A_shared_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            A_shared_pad[v0, v1] = T.if_then_else(v1 < 127, A_shared[v0, v1], T.float32(0.0))
    for i0, i1 in T.grid(128, 128):
        with T.sblock("B_shared_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            B_shared_pad[v0, v1] = T.if_then_else(v0 < 127 and v1 < 127, B_shared[v0, v1],
                                                  T.float32(0.0))
    for i0, i1, i2 in T.grid(128, 128, 128):
        with T.sblock("C_shared"):
            i, j, k = T.axis.remap("SSR", [i0, i1, i2])
            with T.init():
                C_shared_pad[i, j] = T.float32(0.0)
            C_shared_pad[i, j] = C_shared_pad[i, j] + A_shared_pad[i, k] * B_shared_pad[k, j]
    for i0, i1 in T.grid(128, 127):
        with T.sblock("C_shared_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            C_shared[v0, v1] = C_shared_pad[v0, v1]
    for i0, i1 in T.grid(128, 127):
        with T.sblock("C"):
            i, j = T.axis.remap("SS", [i0, i1])
            C[i, j] = C_shared[i, j]


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


@T.prim_func(s_tir=True)
def dyn_rowsum(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 16), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i, k in T.grid(n, 16):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk] * T.float32(2)


def test_pad_einsum_of_a_symbolic_extent_pads_parameters_through_copies():
    sch = Schedule(dyn_rowsum)
    sch.pad_einsum("B", [8, 1])
    text = sch.mod.script()
    assert "(n + 7) // 8 * 8" in text
    assert 'sblock("A_pad")' in text and 'sblock("B_pad")' in text
    verify_trace_roundtrip(sch, dyn_rowsum)
    a = np.random.default_rng(4).random((13, 16), "float32")
    b = np.zeros(13, "float32")
    tvm.build(sch.mod)(a, b)
    np.testing.assert_allclose(b, 2 * a.sum(1), rtol=1e-5)


@pytest.mark.parametrize("block, padding, message", [
    ("C_shared", [32, 32], "padding"),
    ("C_shared", [32, 0, 32], "padding"),
    ("C_shared", [1, 1, 1], "already padded"),
])
def test_pad_einsum_rejects_what_it_cannot_pad(block, padding, message):
    sch = Schedule(staged_matmul)
    before = sch.mod
    with pytest.raises(ScheduleError, match=message):
        sch.pad_einsum(block, padding)
    assert sch.mod is before
