"""Parallel, vectorized and unrolled loops in the LLVM backend (tir/codegen_parallel.py,
tir/codegen_vector.py, vm/parallel_runtime.py): results vs numpy, and the IR they produce."""

from __future__ import annotations

import os
import sys
import threading

import llvmlite.binding as llvm
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.kernel_build import compile_prim_funcs
from tvmlite.tir.jit import jit_kernels
from tvmlite.vm import parallel_runtime

RNG = np.random.default_rng(0)


@T.prim_func
def scale_rows(A: T.Buffer((37, 19), "float32"), B: T.Buffer((37, 19), "float32"),
               alpha: T.float32):
    for i in T.parallel(37):
        for j in T.serial(19):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * alpha + T.Cast("float32", vi)


@T.prim_func
def row_sums(A: T.Buffer((64, 33), "float32"), S: T.Buffer((64,), "float32")):
    for i in T.parallel(64):
        for k in T.serial(33):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def nested(A: T.Buffer((8, 16, 4), "float32"), B: T.Buffer((8, 16, 4), "float32")):
    for n in range(8):
        for i in T.parallel(16):
            for j in T.parallel(4):  # nested parallel: runs serially inside the task
                with T.block("B"):
                    vn, vi, vj = T.axis.remap("SSS", [n, i, j])
                    B[vn, vi, vj] = A[vn, vi, vj] + T.float32(1)


@T.prim_func
def vec(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16,), "float32"),
        C: T.Buffer((4, 16), "float32")):
    for i in range(4):
        for j in T.vectorized(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj] * B[vj] + A[vi, 0], T.float32(0)) + T.exp(B[vj])


@T.prim_func
def unrolled(A: T.Buffer((4, 3), "int32"), C: T.Buffer((4, 3), "int32")):
    for i in range(4):
        for j in T.unroll(3):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * (vj + 1)


def _ir(func, target="llvm"):
    text, _ = compile_prim_funcs({"k": func}, target)
    llvm.parse_assembly(text).verify()
    return text


def test_parallel_with_scalar_param_and_uneven_chunks() -> None:
    a = RNG.standard_normal((37, 19)).astype("float32")
    b = np.zeros_like(a)
    tvm.build(scale_rows)(a, b, 2.5)
    np.testing.assert_allclose(b, a * 2.5 + np.arange(37, dtype="float32")[:, None], rtol=1e-6)
    assert "tvmlite_parallel_launch" in _ir(scale_rows)


def test_parallel_reduction_outer_loop() -> None:
    a = RNG.standard_normal((64, 33)).astype("float32")
    s = np.zeros(64, "float32")
    tvm.build(row_sums)(a, s)
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_nested_parallel_runs() -> None:
    a = RNG.standard_normal((8, 16, 4)).astype("float32")
    b = np.zeros_like(a)
    tvm.build(nested)(a, b)
    np.testing.assert_array_equal(b, a + 1)
    assert _ir(nested).count("call void @\"tvmlite_parallel_launch\"") == 1


@pytest.mark.parametrize("cores", [1, 3])
def test_num_cores_target_option(cores: int) -> None:
    a = RNG.standard_normal((37, 19)).astype("float32")
    b = np.zeros_like(a)
    tvm.build(scale_rows, target=f"llvm -num-cores={cores}")(a, b, 1.0)
    np.testing.assert_allclose(b, a + np.arange(37, dtype="float32")[:, None], rtol=1e-6)
    assert f"i32 {cores})" in _ir(scale_rows, f"llvm -num-cores={cores} -mcpu=native")


def test_kernel_called_from_many_python_threads() -> None:
    """Concurrent launches: one owns the pool, the others run their tasks serially."""
    f = tvm.build(row_sums)
    a = RNG.standard_normal((64, 33)).astype("float32")
    outs = [np.zeros(64, "float32") for _ in range(8)]
    threads = [threading.Thread(target=lambda o=o: [f(a, o) for _ in range(50)]) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs:
        np.testing.assert_allclose(o, a.sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts /proc/self/task")
def test_pool_runs_native_threads() -> None:
    tvm.build(scale_rows)(np.zeros((37, 19), "float32"), np.zeros((37, 19), "float32"), 1.0)
    if parallel_runtime.num_threads() > 1:
        assert len(os.listdir("/proc/self/task")) >= parallel_runtime.num_threads()


def test_vectorized_loop_emits_vector_ops() -> None:
    a = RNG.standard_normal((4, 16)).astype("float32")
    b = RNG.standard_normal(16).astype("float32")
    c = np.zeros_like(a)
    tvm.build(vec)(a, b, c)
    want = np.maximum(a * b + a[:, :1], 0) + np.exp(b)
    np.testing.assert_allclose(c, want, rtol=1e-5)
    text = _ir(vec)
    assert "<16 x float>" in text and "for_header" in text  # the i loop stays a loop
    optimized = jit_kernels(text).optimized_ir()
    assert "x float>" in optimized


def test_unroll_is_explicit() -> None:
    a = np.arange(12, dtype="int32").reshape(4, 3)
    c = np.zeros_like(a)
    tvm.build(unrolled)(a, c)
    np.testing.assert_array_equal(c, a * np.array([1, 2, 3], "int32"))
    labels = [line for line in _ir(unrolled).splitlines() if line.startswith("for_header")]
    assert len(labels) == 1  # only the i loop is left


def test_runtime_ir_verifies() -> None:
    for threads in (1, 2, 16):
        llvm.parse_assembly(parallel_runtime.runtime_ir(threads)).verify()
