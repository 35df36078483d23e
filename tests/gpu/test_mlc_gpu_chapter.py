# ruff: noqa: F821, E501  (the chapter's old-syntax `T.Buffer[(n,), "float32"]` strings, and
# the expected modules as TVM prints them, one long line per binding)
"""The MLC course's GPU chapter (part 1) as written: window sum with a shared-memory cache, and
the matmul with local register tiles plus shared-memory tiles fetched cooperatively.

The schedules must give the modules Apache TVM 0.27 prints for the same steps (the expected
modules below are its output, reads/writes aside), build for CUDA with shared buffers shrunk
to the tile, and get the `__syncthreads()` barriers TVM inserts (the course never writes them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import gpu_kernels as gk
import numpy as np
import pytest
from mlc_gpu_chapter import (
    blocking_with_shared, matmul_module, window_sum_module, window_sum_schedule,
)

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import tir as T


# -- what TVM 0.27 prints for them -----------------------------------------------------------


@I.ir_module
class WindowSumComputeAtTVM:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"tir.noalias": True})
        A_shared = T.sblock_alloc_buffer((1027,), scope="shared")
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                for ax0 in range(130):
                    with T.sblock("A_shared"):
                        v0 = T.axis.spatial(1027, i_0 * 128 + ax0)
                        A_shared[v0] = A[v0]
                with T.sblock("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    B[vi] = A_shared[vi] + A_shared[vi + 1] + A_shared[vi + 2]


@I.ir_module
class MatmulSharedTVM:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
             C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"tir.noalias": True})
        C_local = T.sblock_alloc_buffer((1024, 1024), scope="local")
        A_shared = T.sblock_alloc_buffer((1024, 1024), scope="shared")
        B_shared = T.sblock_alloc_buffer((1024, 1024), scope="shared")
        for i_0 in T.thread_binding(16, thread="blockIdx.y"):
            for j_0 in T.thread_binding(16, thread="blockIdx.x"):
                for i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
                    for i_2_init, j_2_init in T.grid(8, 8):
                        with T.sblock("C_init"):
                            vi = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + i_2_init)
                            vj = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + j_2_init)
                            C_local[vi, vj] = T.float32(0.0)
                    for k_0 in range(128):
                        for ax0_ax1_fused_0 in range(2):
                            for ax0_ax1_fused_1 in T.thread_binding(64, thread="threadIdx.x"):
                                for ax0_ax1_fused_2 in T.vectorized(4):
                                    with T.sblock("A_shared"):
                                        v0 = T.axis.spatial(1024, i_0 * 64 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1 * 4 + ax0_ax1_fused_2) // 8)
                                        v1 = T.axis.spatial(1024, k_0 * 8 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1 * 4 + ax0_ax1_fused_2) % 8)
                                        A_shared[v0, v1] = A[v0, v1]
                        for ax0_ax1_fused_0 in range(2):
                            for ax0_ax1_fused_1 in T.thread_binding(64, thread="threadIdx.x"):
                                for ax0_ax1_fused_2 in T.vectorized(4):
                                    with T.sblock("B_shared"):
                                        v0 = T.axis.spatial(1024, k_0 * 8 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1 * 4 + ax0_ax1_fused_2) // 64)
                                        v1 = T.axis.spatial(1024, j_0 * 64 + (ax0_ax1_fused_0 * 256 + ax0_ax1_fused_1 * 4 + ax0_ax1_fused_2) % 64)
                                        B_shared[v0, v1] = B[v0, v1]
                        for k_1, i_2, j_2 in T.grid(8, 8, 8):
                            with T.sblock("C_update"):
                                vi = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + i_2)
                                vj = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + j_2)
                                vk = T.axis.reduce(1024, k_0 * 8 + k_1)
                                C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                    for ax0, ax1 in T.grid(8, 8):
                        with T.sblock("C_local"):
                            v0 = T.axis.spatial(1024, i_0 * 64 + i_1_j_1_fused // 8 * 8 + ax0)
                            v1 = T.axis.spatial(1024, j_0 * 64 + i_1_j_1_fused % 8 * 8 + ax1)
                            C[v0, v1] = C_local[v0, v1]


def test_window_sum_compute_at_relaxes_the_thread_loop_like_tvm() -> None:
    sch = window_sum_schedule(window_sum_module(), cooperative=False)
    assert_structural_equal(sch.mod["main"], WindowSumComputeAtTVM["main"])


def test_matmul_with_shared_tiles_matches_tvm() -> None:
    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module()), 8, 8, 8, 8, 8)
    assert_structural_equal(sch.mod["main"], MatmulSharedTVM["main"])


# -- CUDA source -------------------------------------------------------------------------------


def kernel_source(sch: Any) -> str:
    src = tvm.build(sch.mod, target="cuda").get_source()
    return src[src.index('extern "C"'):]


def test_window_sum_kernel_shrinks_the_cache_and_waits_for_it() -> None:
    src = kernel_source(window_sum_schedule(window_sum_module()))
    shared = re.findall(r"__shared__ __align__\(16\) float A_shared\[(\d+)\];", src)
    assert shared and int(shared[0]) <= 256  # the block's 130 elements, not all 1027
    fetch, compute = src.index("A_shared[(ax0_0"), src.index("B[")  # int32 indices
    assert src.count("__syncthreads();") == 1
    assert fetch < src.index("__syncthreads();") < compute  # read after the block's writes


def test_matmul_kernel_has_tvms_barriers_around_the_tile_fetch() -> None:
    src = kernel_source(blocking_with_shared(tvm.tir.Schedule(matmul_module()), 8, 8, 8, 8, 8))
    assert "__shared__ __align__(16) float A_shared[512];" in src
    assert "__shared__ __align__(16) float B_shared[512];" in src
    assert "float C_local[64];" in src
    k_loop = src[src.index("for (int k_0 = 0; k_0 < 128; ++k_0) {"):]
    first_sync, fetch_a = k_loop.index("__syncthreads();"), k_loop.index("A_shared[")
    second_sync, compute = k_loop.index("__syncthreads();", first_sync + 1), k_loop.index(
        "for (int k_1")
    # as TVM: wait before overwriting the previous tile (WAR), fetch, wait (RAW), compute
    assert first_sync < fetch_a < second_sync < compute
    assert src.count("__syncthreads();") == 2


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_chapter_kernels_compile_with_nvcc(tmp_path: Path) -> None:
    for sch in (window_sum_schedule(window_sum_module()),
                blocking_with_shared(tvm.tir.Schedule(matmul_module()), 8, 8, 8, 8, 8)):
        cu = tmp_path / "k.cu"
        cu.write_text(tvm.build(sch.mod, target="cuda").get_source())
        res = subprocess.run(["nvcc", "-ptx", "-arch=sm_80", str(cu), "-o", str(tmp_path / "k")],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr


# -- the schedules keep the program's meaning (thread loops run serially on the CPU) -----------


def run_serially(sch: Any, *arrays: np.ndarray) -> None:
    tvm.build(gk.serial_threads(sch.mod["main"]), target="llvm")(*arrays)


def test_scheduled_window_sum_and_matmul_compute_the_same_on_the_cpu() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1027).astype("float32")
    b = np.zeros(1024, "float32")
    run_serially(window_sum_schedule(window_sum_module()), a, b)
    np.testing.assert_allclose(b, a[:1024] + a[1:1025] + a[2:1026], rtol=1e-6)
    x, y = rng.standard_normal((2, 128, 128)).astype("float32")
    z = np.zeros((128, 128), "float32")
    run_serially(blocking_with_shared(tvm.tir.Schedule(matmul_module(128)), 4, 4, 8, 8, 8),
                 x, y, z)
    np.testing.assert_allclose(z, x @ y, rtol=1e-4, atol=1e-4)


# -- run on the GPU (or the CPU emulator of CuPy, see conftest.py) -----------------------------


def run_on_gpu(sch: Any, *arrays: np.ndarray) -> list[np.ndarray]:
    mod = tvm.build(sch.mod, target="cuda")
    args = [tvm.nd.array(a, tvm.cuda()) for a in arrays]
    mod(*args)
    return [a.numpy() for a in args]


@pytest.mark.usefixtures("cuda_backend")
def test_chapter_kernels_compute_what_numpy_does_on_the_gpu() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(1027).astype("float32")
    _, b = run_on_gpu(window_sum_schedule(window_sum_module()), a, np.zeros(1024, "float32"))
    np.testing.assert_allclose(b, a[:1024] + a[1:1025] + a[2:1026], rtol=1e-6)
    x, y = rng.standard_normal((2, 256, 256)).astype("float32")
    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module(256)), 8, 8, 8, 8, 8)
    *_, z = run_on_gpu(sch, x, y, np.zeros((256, 256), "float32"))
    np.testing.assert_allclose(z, x @ y, rtol=1e-4, atol=1e-4)


@pytest.mark.usefixtures("cuda_backend")
def test_without_the_inserted_barriers_the_tiles_race(cuda_backend: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The barriers matter: with insertion switched off, the emulator's phase-by-phase threads
    read tiles before they are written (or after they are overwritten) and the answer is
    wrong, or its second, reversed run disagrees with the first."""
    if cuda_backend != "emulator":
        pytest.skip("a real GPU races nondeterministically; the emulator shows it every time")
    import tvmlite.tir.codegen_cuda as codegen_cuda

    monkeypatch.setattr(codegen_cuda, "insert_barriers", lambda kernel, launch: kernel)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((2, 128, 128)).astype("float32")
    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module(128)), 8, 8, 8, 8, 8)
    assert "__syncthreads" not in tvm.build(sch.mod, target="cuda").get_source()
    try:
        *_, z = run_on_gpu(sch, x, y, np.zeros((128, 128), "float32"))
    except Exception as err:  # the emulator's DataRaceError
        assert "race" in str(err).lower()
    else:
        assert not np.allclose(z, x @ y, rtol=1e-4, atol=1e-4)


@pytest.mark.usefixtures("cuda_backend")
def test_chapter_tunes_the_matmul_for_the_gpu(tmp_path: Path) -> None:
    """The chapter's last step: meta_schedule searches GPU schedules (tile sizes for blocks,
    threads and per-thread registers), timing each on the GPU, and compile_tir returns the
    fastest (on the emulator the times mean nothing, but the flow and the answers are real)."""
    from tvmlite import meta_schedule as ms

    mod = matmul_module(128)
    database = ms.tune_tir(mod=mod, target="nvidia/tesla-p100", max_trials_global=3,
                           num_trials_per_iter=3, work_dir=str(tmp_path), task_name="main")
    sch = ms.tir_integration.compile_tir(database, mod, "nvidia/tesla-p100")
    trace = str(sch.trace)
    assert 'sch.bind(loop=' in trace and 'thread_axis="threadIdx.x"' in trace
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 128, 128)).astype("float32")
    *_, z = run_on_gpu(sch, x, y, np.zeros((128, 128), "float32"))
    np.testing.assert_allclose(z, x @ y, rtol=1e-4, atol=1e-4)
