# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
# ---

# %% [markdown]
# # 3. GPU acceleration: thread binding, shared memory, and the MLP on `tvm.cuda()`
#
# This notebook follows the MLC course's GPU chapter with tvmlite. A GPU runs a *grid* of
# thread *blocks*; in TVMScript a loop is mapped onto that hierarchy by binding it to
# `blockIdx.*` (which block) or `threadIdx.*` (which thread inside the block). tvmlite turns
# each bound loop nest into one CUDA C kernel, compiles it with NVRTC through CuPy and launches
# it. Without CuPy or a GPU everything up to running works: we build and print the CUDA source.

# %%
from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.vm.cuda import CudaUnavailableError, cupy_module

try:
    cupy_module()
    HAVE_GPU = True
except CudaUnavailableError as err:
    HAVE_GPU = False
    print("No GPU here, so we build and print CUDA source only:", err)

# %% [markdown]
# ## Binding loops to blocks and threads
#
# A vector add over 1024 elements: 8 blocks of 128 threads, each thread one element.

# %%
@I.ir_module
class VecAdd:
    @T.prim_func
    def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"),
             C: T.Buffer((1024,), "float32")):
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("C"):
                    vi = T.axis.spatial(1024, bx * 128 + tx)
                    C[vi] = A[vi] + B[vi]


vec_add = tvm.build(VecAdd, target="cuda")
source = vec_add.get_source()
print(source[source.index('extern "C"'):])

# %% [markdown]
# ## Shared-memory tiling
#
# A matrix multiply where each block computes a 64×64 tile of C with 16×16 threads, each
# thread a 4×4 sub-tile held in registers (`scope="local"`). The block walks K in steps of 16:
# its threads copy a 64×16 slice of A and a 16×64 slice of B into shared memory (one copy
# serves 64 threads), wait at a barrier (`T.tvm_storage_sync("shared")` → `__syncthreads()`),
# and multiply from shared memory.

# %%
N = 512


@T.prim_func
def matmul(A: T.Buffer((N, N), "float32"), B: T.Buffer((N, N), "float32"),
           C: T.Buffer((N, N), "float32")):
    A_sh = T.alloc_buffer((64, 16), scope="shared")
    B_sh = T.alloc_buffer((16, 64), scope="shared")
    C_loc = T.alloc_buffer((4, 4), scope="local")
    for by in T.thread_binding(N // 64, thread="blockIdx.y"):
        for bx in T.thread_binding(N // 64, thread="blockIdx.x"):
            for ty in T.thread_binding(16, thread="threadIdx.y"):
                for tx in T.thread_binding(16, thread="threadIdx.x"):
                    for i, j in T.grid(4, 4):
                        C_loc[i, j] = T.float32(0)
                    for k0 in range(N // 16):
                        for r in T.unroll(4):  # 256 threads copy 1024 values of each tile
                            A_sh[(ty * 16 + tx) // 4, (ty * 16 + tx) % 4 * 4 + r] = A[
                                by * 64 + (ty * 16 + tx) // 4, k0 * 16 + (ty * 16 + tx) % 4 * 4 + r]
                            B_sh[ty, tx * 4 + r] = B[k0 * 16 + ty, bx * 64 + tx * 4 + r]
                        T.tvm_storage_sync("shared")
                        for k1 in T.unroll(16):
                            for i in T.unroll(4):
                                for j in T.unroll(4):
                                    C_loc[i, j] = C_loc[i, j] + A_sh[ty * 4 + i, k1] * B_sh[
                                        k1, tx * 4 + j]
                        T.tvm_storage_sync("shared")
                    for i, j in T.grid(4, 4):
                        C[by * 64 + ty * 4 + i, bx * 64 + tx * 4 + j] = C_loc[i, j]


mm = tvm.build(matmul, target="cuda")
mm_source = mm.get_source()
for line in mm_source.splitlines():
    if "__shared__" in line or "__syncthreads" in line or "__global__" in line:
        print(line.strip())
print("launch:", mm.lib.functions["matmul"].launches)

# %%
if HAVE_GPU:
    rng = np.random.default_rng(0)
    a_np, b_np = (rng.standard_normal((N, N)).astype("float32") for _ in range(2))
    dev = tvm.cuda()
    a, b, c = tvm.nd.array(a_np, dev), tvm.nd.array(b_np, dev), tvm.nd.empty((N, N), "float32", dev)
    mm(a, b, c)
    np.testing.assert_allclose(c.numpy(), a_np @ b_np, rtol=1e-3, atol=1e-3)
    t = mm.time_evaluator("matmul", dev, number=20)(a, b, c).mean
    print(f"tiled matmul {N}x{N}: {t * 1e6:.1f} us, {2 * N**3 / t / 1e12:.2f} TFLOP/s")

# %% [markdown]
# ## The same tiling from a schedule (the MLC way)
#
# The course does not write that kernel by hand: it schedules the plain matmul. `cache_write`
# keeps each thread's 8×8 tile of C in registers, `cache_read(..., "shared")` + `compute_at`
# stages the A and B tiles a block needs at each step of K, and the copy loops are fused, split
# and bound to `threadIdx.x` so the block's 64 threads fetch them together (4 floats each).
# Nothing here says where threads must wait: like TVM, tvmlite inserts the barriers when it
# lowers for CUDA, one before the fetch (the previous tile has been read) and one after it.

# %%
@I.ir_module
class PlainMatmul:
    @T.prim_func
    def main(A: T.Buffer((N, N), "float32"), B: T.Buffer((N, N), "float32"),
             C: T.Buffer((N, N), "float32")):
        for i, j, k in T.grid(N, N, N):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def cache_read_and_coop_fetch(sch, block, nthread, read_idx, read_loc):
    read_cache = sch.cache_read(block=block, read_buffer_index=read_idx, storage_scope="shared")
    sch.compute_at(block=read_cache, loop=read_loc)
    inner = sch.fuse(*sch.get_loops(block=read_cache)[-2:])
    _, tx, vec = sch.split(loop=inner, factors=[None, nthread, 4])
    sch.vectorize(vec)
    sch.bind(tx, "threadIdx.x")


sch = tvm.tir.Schedule(PlainMatmul)
block_C = sch.get_block("C")
C_local = sch.cache_write(block_C, 0, "local")
i, j, k = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(loop=i, factors=[None, 8, 8])
j0, j1, j2 = sch.split(loop=j, factors=[None, 8, 8])
k0, k1 = sch.split(loop=k, factors=[None, 8])
sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
sch.reverse_compute_at(C_local, j1)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
sch.bind(sch.fuse(i1, j1), "threadIdx.x")
cache_read_and_coop_fetch(sch, block_C, 64, 0, k0)
cache_read_and_coop_fetch(sch, block_C, 64, 1, k0)
sch.decompose_reduction(block_C, k0)

scheduled = tvm.build(sch.mod, target="cuda")
for line in scheduled.get_source().splitlines():
    if "__shared__" in line or "__syncthreads" in line or "for (int k_0" in line:
        print(line.strip())

# %%
if HAVE_GPU:
    c2 = tvm.nd.empty((N, N), "float32", dev)
    scheduled(a, b, c2)
    np.testing.assert_allclose(c2.numpy(), a_np @ b_np, rtol=1e-3, atol=1e-3)
    t = scheduled.time_evaluator("main", dev, number=20)(a, b, c2).mean
    print(f"scheduled matmul {N}x{N}: {t * 1e6:.1f} us, {2 * N**3 / t / 1e12:.2f} TFLOP/s")

# %% [markdown]
# ## The MLP on the GPU
#
# Prim_funcs written without any binding (like the MLP's) still build for CUDA: tvmlite applies
# a default GPU schedule, like TVM's dlight fallback: the spatial loops of each loop nest are
# fused and split over blocks of 256 threads, with reduction loops kept inside each thread.
# The VM then runs on `tvm.cuda()`: it allocates on the GPU and launches the kernels.

# %%
@I.ir_module
class MLP:
    @T.prim_func
    def linear(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
               B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = B[vj]
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

    @T.prim_func
    def relu(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w: R.Tensor((128, 784), "float32"),
             b: R.Tensor((128,), "float32")):
        with R.dataflow():
            h = R.call_tir(linear, (x, w, b), R.Tensor((1, 128), "float32"))
            y = R.call_tir(relu, (h,), R.Tensor((1, 128), "float32"))
            R.output(y)
        return y


ex = relax.build(MLP, target="cuda")
mlp_source = ex.kernels.get_source()
start = mlp_source.index('extern "C" __global__ void __launch_bounds__(128) linear')
print(mlp_source[start:mlp_source.index("\n}\n", start) + 2])

# %%
if HAVE_GPU:
    vm = relax.VirtualMachine(ex, tvm.cuda())
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in [(1, 784), (128, 784), (128,)])
    out = vm["main"](*(tvm.nd.array(v, tvm.cuda()) for v in (x, w, b)))
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w.T + b, 0), rtol=1e-4, atol=1e-4)
    print("GPU MLP matches numpy; the result lives on", out.device)
