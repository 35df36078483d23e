# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
# ---

# %% [markdown]
# # 2. Tensor program optimization: a matmul from plain loops to a fast kernel
#
# This notebook follows the MLC course's lecture on automatic program optimization, with
# tvmlite in place of TVM (only the import lines differ). We take the plain three-loop matmul
# and transform its loops with `tvm.s_tir.Schedule` (TVM 0.27's name; `tvm.tir.Schedule` is the
# same class), one step at a time, printing the program and its speed after each step:
#
# 1. the plain loops (`k` innermost: every `C[i, j]` walks a column of `B`);
# 2. tiling: split `i` and `j`, and move `k` outside the tile;
# 3. accumulate the tile in a local buffer (`cache_write` + `reverse_compute_at`), which the
#    compiler keeps in registers;
# 4. vectorize the tile's columns and unroll its rows;
# 5. run the tiles on all cores (`parallel`) and split the reduction's init out of the
#    loop (`decompose_reduction`).

# %%
import time

import numpy as np

import tvmlite as tvm
from tvmlite.script import tir as T

N = 256  # keep it small: this notebook runs in the test suite


@T.prim_func
def matmul(A: T.Buffer((N, N), "float32"), B: T.Buffer((N, N), "float32"),
           C: T.Buffer((N, N), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(N, N, N):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


rng = np.random.default_rng(0)
a, b = rng.standard_normal((2, N, N)).astype("float32")
expected = a @ b


def show(mod) -> None:
    """Prints the module as TVMScript (the printer is new: fall back to a note)."""
    try:
        print(mod.script())
    except Exception as err:  # noqa: BLE001
        print(f"(printer unavailable: {err})")


def measure(mod, label: str, repeat: int = 3) -> float:
    """Builds `mod`, checks it against numpy, and prints its GFLOP/s (best of `repeat`)."""
    f = tvm.build(mod, target="llvm")
    c = np.zeros((N, N), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)
    best = min(_seconds(f, c) for _ in range(repeat))
    gflops = 2 * N**3 / best / 1e9
    print(f"{label:<40s} {gflops:8.2f} GFLOP/s")
    return gflops


def _seconds(f, c) -> float:
    start = time.perf_counter()
    f(a, b, c)
    return time.perf_counter() - start


# %% [markdown]
# ## Step 1: the plain loops

# %%
sch = tvm.s_tir.Schedule(matmul)
show(sch.mod)
results = {"plain": measure(sch.mod, "1. plain loops")}

# %% [markdown]
# ## Step 2: tiling
#
# `split` turns `i` into `i_0, i_1` (8 rows per tile) and `j` into `j_0, j_1` (32 columns);
# `reorder` puts `k` between the tile loops and the loops inside a tile, so one tile's
# 8 x 32 results are all updated for each `k`.

# %%
block = sch.get_block("C")
i, j, k = sch.get_loops(block)
i0, i1 = sch.split(i, factors=[None, 8])
j0, j1 = sch.split(j, factors=[None, 32])
sch.reorder(i0, j0, k, i1, j1)
show(sch.mod)
results["tiled"] = measure(sch.mod, "2. tiled (split + reorder)")

# %% [markdown]
# ## Step 3: accumulate the tile locally
#
# `cache_write` makes the block write a `local` copy of `C` and adds a block that copies it
# back; `reverse_compute_at` moves that copy under `j_0`, right after the tile is done. When
# the kernel is compiled, the local buffer shrinks to the 8 x 32 tile.

# %%
write_back = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(write_back, j0)
show(sch.mod)
results["local"] = measure(sch.mod, "3. + local accumulator (cache_write)")

# %% [markdown]
# ## Step 4: vectors and unrolling
#
# `vectorize(j_1)` makes each row of the tile one 32-lane vector operation; `unroll(i_1)`
# writes the 8 rows out, so the tile lives in vector registers for the whole `k` loop.
# A reduction loop cannot be vectorized: `vectorize(k)` raises a `ScheduleError`, and the
# schedule stays as it was.

# %%
sch.vectorize(j1)
sch.unroll(i1)
try:
    sch.vectorize(k)
except tvm.s_tir.ScheduleError as err:
    print("refused:", err)
show(sch.mod)
results["vector"] = measure(sch.mod, "4. + vectorize + unroll")

# %% [markdown]
# ## Step 5: all cores, and the init out of the reduction
#
# `parallel(i_0)` runs the row tiles on native threads (the kernel is called without the
# GIL); `decompose_reduction` moves `C_local = 0` in front of the `k` loop.

# %%
sch.parallel(i0)
sch.decompose_reduction(block, k)
show(sch.mod)
results["parallel"] = measure(sch.mod, "5. + parallel + decompose_reduction")

# %% [markdown]
# ## The schedule as a program
#
# `sch.trace` records every step; it prints as Python and replays on a fresh schedule.

# %%
print(sch.trace)
replay = tvm.s_tir.Schedule(matmul)
sch.trace.apply_to_schedule(replay)
measure(replay.mod, "replayed trace")
numpy_s = min(_seconds(lambda x, y, z: x @ y, None) for _ in range(5))
print(f"{'numpy (BLAS)':<40s} {2 * N**3 / numpy_s / 1e9:8.2f} GFLOP/s")
print(f"speed-up over the plain loops: {results['parallel'] / results['plain']:.0f}x")
