# ruff: noqa: F821  (the chapter's old-syntax `T.Buffer[(n,), "float32"]` strings)
"""The MLC course's GPU chapter (part 1), as the course writes it: the window-sum and matmul
modules and the schedule functions (`blocking_with_shared`, `cache_read_and_coop_fetch`).
Shared by the chapter's tests and bench/gpu.py."""

from __future__ import annotations

from typing import Any

import tvmlite as tvm
from tvmlite.script import ir as I
from tvmlite.script import tir as T


def window_sum_module(n: int = 1024) -> Any:
    @I.ir_module
    class MyModuleWindowSum:
        @T.prim_func
        def main(A: T.Buffer[(n + 3,), "float32"], B: T.Buffer[(n,), "float32"]) -> None:
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i in T.grid(n):
                with T.block("C"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi] + A[vi + 1] + A[vi + 2]

    return MyModuleWindowSum


def matmul_module(n: int = 1024) -> Any:
    @I.ir_module
    class MyModuleMatmul:
        @T.prim_func
        def main(A: T.Buffer[(n, n), "float32"], B: T.Buffer[(n, n), "float32"],
                 C: T.Buffer[(n, n), "float32"]) -> None:
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i, j, k in T.grid(n, n, n):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        C[vi, vj] = 0.0
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return MyModuleMatmul


# -- the chapter's schedules, verbatim --------------------------------------------------------


def window_sum_schedule(mod: Any, cooperative: bool = True) -> Any:
    sch = tvm.tir.Schedule(mod)
    nthread = 128
    block_C = sch.get_block("C")
    i, = sch.get_loops(block=block_C)
    i0, i1 = sch.split(i, [None, nthread])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope="shared")
    sch.compute_at(A_shared, i1)
    if cooperative:
        ax = sch.get_loops(A_shared)[-1]
        ax0, ax1 = sch.split(ax, [None, nthread])
        sch.bind(ax1, "threadIdx.x")
    return sch


def cache_read_and_coop_fetch(sch, block, nthread, read_idx, read_loc):
    read_cache = sch.cache_read(block=block, read_buffer_index=read_idx, storage_scope="shared")
    sch.compute_at(block=read_cache, loop=read_loc)
    # vectorized cooperative fetch
    inner0, inner1 = sch.get_loops(block=read_cache)[-2:]
    inner = sch.fuse(inner0, inner1)
    _, tx, vec = sch.split(loop=inner, factors=[None, nthread, 4])
    sch.vectorize(vec)
    sch.bind(tx, "threadIdx.x")


def blocking_with_shared(sch, tile_local_y, tile_local_x, tile_block_y, tile_block_x, tile_k):
    block_C = sch.get_block("C")
    C_local = sch.cache_write(block_C, 0, "local")
    i, j, k = sch.get_loops(block=block_C)
    i0, i1, i2 = sch.split(loop=i, factors=[None, tile_block_y, tile_local_y])
    j0, j1, j2 = sch.split(loop=j, factors=[None, tile_block_x, tile_local_x])
    k0, k1 = sch.split(loop=k, factors=[None, tile_k])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    sch.reverse_compute_at(C_local, j1)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    nthread = tile_block_y * tile_block_x
    cache_read_and_coop_fetch(sch, block_C, nthread, 0, k0)
    cache_read_and_coop_fetch(sch, block_C, nthread, 1, k0)
    sch.decompose_reduction(block_C, k0)
    return sch
