"""blockize (iter vars inferred, as TVM 0.27 prints it) and tensorize with a registered
TensorIntrin (the MLC course's 16x16 `tmm` on the CPU, its implementation written in TIR), compiled
and compared with numpy:
structure, numerics against numpy, legality errors, the replayed trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir import TensorIntrin
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func(s_tir=True)
def tmm16_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, scope="global")
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, scope="global")
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, scope="global")
    with T.sblock("root"):
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock(""):
                vii, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                C[vii, vjj] = C[vii, vjj] + A[vii, vkk] * B[vjj, vkk]


@T.prim_func(s_tir=True)
def tmm16_vector_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, scope="global")
    B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, scope="global")
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, scope="global")
    with T.sblock("root"):
        for i, k in T.grid(16, 16):
            for j in T.vectorized(16):
                C[i, j] = C[i, j] + A[i, k] * B[j, k]


TensorIntrin.register("test_tmm16", tmm16_desc, tmm16_vector_impl, override=True)


@T.prim_func(s_tir=True)
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
           C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


# TVM 0.27 after split(i, [None, 16]), split(j, [None, 16]), reorder(i0, j0, i1, j1),
# blockize(i1) (its T.reads/T.writes left out)
@T.prim_func(s_tir=True)
def matmul_blockized(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
                     C: T.Buffer((64, 64), "float32")):
    for i_0, j_0 in T.grid(4, 4):
        with T.sblock("matmul_o"):
            vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
            vk_o = T.axis.reduce(1, 0)  # noqa: F841 (a unit iter var, as TVM keeps it)
            with T.init():
                for i_1, j_1 in T.grid(16, 16):
                    with T.sblock("matmul_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                        C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0.0)
            for i_1, j_1, k in T.grid(16, 16, 64):
                with T.sblock("matmul"):
                    vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k])
                    C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = (
                        C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]
                        + A[vi_o * 16 + vi_i, vk_i] * B[vj_o * 16 + vj_i, vk_i])


def _args():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 64, 64)).astype("float32")
    return [a, b, np.zeros((64, 64), "float32")], a @ b.T


def _tiled(k_factor: int = 16) -> tuple[Schedule, object]:
    sch = Schedule(matmul)
    block = sch.get_block("matmul")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, 16])
    j0, j1 = sch.split(j, [None, 16])
    k0, k1 = sch.split(k, [None, k_factor])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    sch.decompose_reduction(block, k0)
    return sch, i1


def test_blockize_infers_iter_vars_as_tvm_does():
    sch = Schedule(matmul)
    i, j, _ = sch.get_loops("matmul")
    i0, i1 = sch.split(i, [None, 16])
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i0, j0, i1, j1)
    outer = sch.blockize(i1)
    assert sch.get(outer).name_hint == "matmul_o"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], matmul_blockized)
    verify_trace_roundtrip(sch, matmul)
    args, want = _args()
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-4, atol=1e-4)


def test_tensorize_the_course_tmm16_runs_on_the_cpu():
    sch, i1 = _tiled()
    outer = sch.blockize(i1)
    sch.tensorize(outer, "test_tmm16")
    text = sch.mod.script()
    assert ("A_1 = T.match_buffer(A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], "
            "(16, 16)") in text
    verify_trace_roundtrip(sch, matmul)
    args, want = _args()
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-4, atol=1e-4)


def test_tensorize_a_loop_blockizes_it_first():
    sch, i1 = _tiled()
    sch.tensorize(i1, "test_tmm16")
    assert "tensorize(block_or_loop=l" in str(sch.trace)
    verify_trace_roundtrip(sch, matmul)
    args, want = _args()
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-4, atol=1e-4)


def test_tensorize_rejects_a_block_that_does_not_match():
    sch, i1 = _tiled(k_factor=8)  # an 16x16x8 tile against a 16x16x16 intrinsic
    outer = sch.blockize(i1)
    before = sch.mod
    with pytest.raises(ScheduleError, match="matmul_update_o"):
        sch.tensorize(outer, "test_tmm16")
    assert_structural_equal(sch.mod, before)


def test_tensorize_needs_the_reduction_decomposed():
    sch = Schedule(matmul)
    i, j, k = sch.get_loops("matmul")
    i0, i1 = sch.split(i, [None, 16])
    j0, j1 = sch.split(j, [None, 16])
    k0, k1 = sch.split(k, [None, 16])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    with pytest.raises(ScheduleError, match="decompose_reduction"):
        sch.tensorize(sch.blockize(i1), "test_tmm16")


def test_tensor_intrin_registry():
    assert TensorIntrin.get("test_tmm16").desc is tmm16_desc
    assert TensorIntrin.get("no_such_intrin", allow_missing=True) is None
    with pytest.raises(ValueError, match="already registered"):
        TensorIntrin.register("test_tmm16", tmm16_desc, tmm16_vector_impl)
    with pytest.raises(ValueError, match="no tensor intrinsic"):
        TensorIntrin.get("no_such_intrin")
