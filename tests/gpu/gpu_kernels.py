"""TVMScript kernels for the GPU tests and bench/gpu.py: elementwise, a reduction, fp16, and an
MLC-style tiled matmul (thread binding, shared-memory tiles, per-thread register tiles)."""

from __future__ import annotations

from typing import Any

from tvmlite.script import ir as I
from tvmlite.script import tir as T
from tvmlite.tir.functor import Mutator
from tvmlite.tir.stmt import For, ForKind


@I.ir_module
class Kernels:
    @T.prim_func
    def add_relu(A: T.Buffer((1000, 37), "float32"), B: T.Buffer((1000, 37), "float32"),
                 C: T.Buffer((1000, 37), "float32")):
        # no binding: built for cuda, it gets the default GPU schedule
        for i, j in T.grid(1000, 37):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj] + B[vi, vj], T.float32(0))

    @T.prim_func
    def exp_bound(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("B"):
                    vi = T.axis.spatial(n, bx * 128 + tx)
                    T.where(bx * 128 + tx < n)
                    B[vi] = T.exp(A[vi]) + T.floordiv(vi, 3).astype("float32")

    @T.prim_func
    def row_sum(A: T.Buffer((512, 300), "float32"), S: T.Buffer((512,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                for k in range(300):
                    with T.block("S"):
                        vi = T.axis.spatial(512, bx * 128 + tx)
                        vk = T.axis.reduce(300, k)
                        with T.init():
                            S[vi] = T.float32(0)
                        S[vi] = S[vi] + A[vi, vk]

    @T.prim_func
    def half_gelu(A: T.Buffer((4096,), "float16"), B: T.Buffer((4096,), "float16")):
        for i in range(4096):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.sigmoid(A[vi] * T.float16(1.702))


def tiled_matmul(n: int) -> Any:
    """C = A @ B (n x n, n % 64 == 0): 64x64 block tiles, 16x16 threads, 4x4 outputs each,
    A/B tiles of depth 16 staged in shared memory (the MLC course's GPU chapter shape)."""

    @T.prim_func
    def matmul(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"),
               C: T.Buffer((n, n), "float32")):
        A_sh = T.alloc_buffer((64, 16), scope="shared")
        B_sh = T.alloc_buffer((16, 64), scope="shared")
        C_loc = T.alloc_buffer((4, 4), scope="local")
        for by in T.thread_binding(n // 64, thread="blockIdx.y"):
            for bx in T.thread_binding(n // 64, thread="blockIdx.x"):
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        for i, j in T.grid(4, 4):
                            C_loc[i, j] = T.float32(0)
                        for k0 in range(n // 16):
                            for r in T.unroll(4):
                                # 256 threads copy 64x16 of A and 16x64 of B, 4 values each
                                A_sh[(ty * 16 + tx) // 4, (ty * 16 + tx) % 4 * 4 + r] = A[
                                    by * 64 + (ty * 16 + tx) // 4,
                                    k0 * 16 + (ty * 16 + tx) % 4 * 4 + r]
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

    return matmul


class _Serial(Mutator):
    def visit_For(self, loop: For) -> Any:
        loop = Mutator.generic_visit(self, loop)
        if loop.kind is ForKind.THREAD_BINDING:
            return For(loop.loop_var, loop.min, loop.extent, ForKind.SERIAL, loop.body)
        return loop


def serial_threads(func: Any) -> Any:
    """`func` with its thread loops made serial: a bound program's meaning, runnable by the
    LLVM backend (each thread's work in turn; valid for programs without barriers)."""
    return func.with_body(_Serial().visit(func.body))

