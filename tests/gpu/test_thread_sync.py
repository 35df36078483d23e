"""Shared-memory barriers inserted before CUDA codegen (tir.thread_sync, TVM's ThreadSync):
where they go, where they must not go, and that barriers a kernel already has are kept."""

from __future__ import annotations

import gpu_kernels as gk
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T


def kernel_body(func) -> str:
    src = tvm.build(func, target="cuda").get_source()
    return src[src.index('extern "C"'):]


@T.prim_func
def reverse_in_block(A: T.Buffer((512,), "float32"), B: T.Buffer((512,), "float32")):
    sh = T.alloc_buffer((128,), scope="shared")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            sh[tx] = A[bx * 128 + tx]
            B[bx * 128 + tx] = sh[127 - tx]


@T.prim_func
def rolling_tiles(A: T.Buffer((4, 128), "float32"), B: T.Buffer((128,), "float32")):
    sh = T.alloc_buffer((128,), scope="shared")
    acc = T.alloc_buffer((1,), scope="local")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            acc[0] = T.float32(0)
            for k in range(4):
                sh[tx] = A[k, tx]
                acc[0] = acc[0] + sh[127 - tx]
            B[tx] = acc[0]


@T.prim_func
def half_block_writes(A: T.Buffer((64,), "float32"), B: T.Buffer((128,), "float32")):
    sh = T.alloc_buffer((64,), scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if tx < 64:
                sh[tx] = A[tx]
            B[tx] = sh[tx % 64]


@T.prim_func
def local_only(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    loc = T.alloc_buffer((2,), scope="local")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            loc[0] = A[tx]
            loc[1] = loc[0] * T.float32(2)
            B[tx] = loc[1]


def test_read_after_other_threads_write_waits() -> None:
    src = kernel_body(reverse_in_block)
    assert src.count("__syncthreads();") == 1
    assert src.index("sh[") < src.index("__syncthreads();") < src.index("B[")


def test_a_loop_waits_before_overwriting_what_the_last_iteration_read() -> None:
    src = kernel_body(rolling_tiles)
    loop = src[src.index("for (int k = 0; k < 4; ++k) {"):]
    syncs = [m for m in range(len(loop)) if loop.startswith("__syncthreads();", m)]
    assert len(syncs) == 2 and src.count("__syncthreads();") == 2
    store, load = loop.index("sh[tx] ="), loop.index("acc[0] =")  # int32 indices
    assert syncs[0] < store < syncs[1] < load  # WAR with the previous k, then RAW


def test_no_barrier_inside_a_branch_only_some_threads_take() -> None:
    src = kernel_body(half_block_writes)
    branch = src[src.index("if ("):src.index("}", src.index("if ("))]
    assert "__syncthreads" not in branch
    assert src.count("__syncthreads();") == 1 and src.index("__syncthreads();") < src.index("B[")


def test_no_barrier_without_shared_memory() -> None:
    assert "__syncthreads" not in kernel_body(local_only)


def test_barriers_a_kernel_already_has_are_enough() -> None:
    src = kernel_body(gk.tiled_matmul(256))
    assert src.count("__syncthreads();") == 2  # the kernel's own two, nothing added


@pytest.mark.usefixtures("cuda_backend")
def test_kernels_with_inserted_barriers_compute_what_numpy_does() -> None:
    rng = np.random.default_rng(0)
    dev = tvm.cuda()

    def run(func, *arrays):
        args = [tvm.nd.array(a, dev) for a in arrays]
        tvm.build(func, target="cuda")(*args)
        return args[-1].numpy()

    a = rng.standard_normal(512).astype("float32")
    np.testing.assert_array_equal(run(reverse_in_block, a, np.zeros(512, "float32")),
                                  a.reshape(4, 128)[:, ::-1].reshape(-1))
    tiles = rng.standard_normal((4, 128)).astype("float32")
    np.testing.assert_allclose(run(rolling_tiles, tiles, np.zeros(128, "float32")),
                               tiles[:, ::-1].sum(0), rtol=1e-5)
    half = rng.standard_normal(64).astype("float32")
    np.testing.assert_array_equal(run(half_block_writes, half, np.zeros(128, "float32")),
                                  np.tile(half, 2))
