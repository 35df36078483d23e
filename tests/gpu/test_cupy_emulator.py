"""The CuPy emulator itself (cupy_emulator.py), so its verdicts on tvmlite can be trusted:
barriers are honoured, missing ones are caught (a wrong answer in ascending thread order, a
DataRaceError when the reverse order disagrees), divergence and bad launches raise, fp16 and
bf16 round like the GPU types, and device arrays refuse to pass for host arrays."""

from __future__ import annotations

import cupy_emulator as cp
import emulated_kernels
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T

MISSING = cp.unavailable()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"CuPy emulator: {MISSING}")
RNG = np.random.default_rng(0)

REDUCE = """
extern "C" __global__ void __launch_bounds__(256) reverse_and_sum(
    const float* __restrict__ x, float* __restrict__ rev, float* __restrict__ sums) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = x[i];
  __syncthreads();
  rev[i] = s[255 - t];  // every thread reads what another one wrote
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {  // tree reduction: 8 more barriers
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}
"""


def launch(source: str, name: str, grid: tuple, block: tuple, *args: object) -> None:
    cp.RawModule(code=source).get_function(name)(grid, block, args)


def reverse_and_sum(source: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = RNG.standard_normal(4 * 256).astype("float32")
    dx, rev, sums = cp.asarray(x), cp.zeros(4 * 256, "float32"), cp.zeros(4, "float32")
    launch(source, "reverse_and_sum", (4,), (256,), dx, rev, sums)
    return x.reshape(4, 256), rev.get().reshape(4, 256), sums.get()


def test_shared_memory_and_barriers_give_the_numpy_answer() -> None:
    x, rev, sums = reverse_and_sum(REDUCE)
    np.testing.assert_array_equal(rev, x[:, ::-1])
    np.testing.assert_allclose(sums, x.sum(1), rtol=1e-5, atol=1e-5)


def test_a_missing_barrier_is_a_data_race_error() -> None:
    racy = REDUCE.replace("__syncthreads();\n  rev", "\n  rev", 1)
    with pytest.raises(cp.DataRaceError, match="reverse_and_sum: the memory of argument 1"):
        reverse_and_sum(racy)


def test_a_missing_barrier_gives_a_wrong_answer_every_time(monkeypatch) -> None:
    monkeypatch.setattr(emulated_kernels, "CHECK_RACES", False)  # one run, ascending threads
    racy = REDUCE.replace("__syncthreads();\n  rev", "\n  rev", 1)
    for _ in range(2):
        x, rev, _ = reverse_and_sum(racy)
        # thread t reads s[255 - t] before thread 255 - t wrote it: the first half of each
        # block sees poisoned shared memory (NaN), the second half the right values
        assert np.isnan(rev[:, :128]).all()
        np.testing.assert_array_equal(rev[:, 128:], x[:, 127::-1])


RACES = {  # each looks fine in one run with threads and blocks in ascending order
    "reads the previous thread's shared slot": """
        __shared__ float s[64];
        s[threadIdx.x] = x[threadIdx.x];
        y[threadIdx.x] = s[threadIdx.x == 0 ? 0 : threadIdx.x - 1];""",
    "two threads write one address": "y[0] = x[threadIdx.x];",
    "a block reads what the previous block wrote": """
        if (threadIdx.x == 0) y[blockIdx.x] = 1.0f;
        if (threadIdx.x == 1 && blockIdx.x > 0) x[blockIdx.x] = y[blockIdx.x - 1];""",
}


@pytest.mark.parametrize("body", RACES.values(), ids=RACES.keys())
def test_races_the_ascending_order_hides_are_caught(body: str) -> None:
    src = f'extern "C" __global__ void k(float* x, float* y) {{{body}\n}}'
    x, y = cp.asarray(np.arange(64, dtype="float32")), cp.zeros(64, "float32")
    with pytest.raises(cp.DataRaceError, match="kernel k: the memory of argument"):
        launch(src, "k", (2,), (64,), x, y)


@T.prim_func
def shift(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    S = T.alloc_buffer((128,), scope="shared")
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S[tx] = A[bx * 128 + tx]
            B[bx * 128 + tx] = S[(tx + 1) % 128]  # another thread's value: needs a barrier


def test_the_barrier_tvmlite_inserts_is_needed_and_enough() -> None:
    a = RNG.standard_normal(256).astype("float32")
    want = np.roll(a.reshape(2, 128), -1, axis=1).ravel()
    mod = tvm.build(shift, target="cuda")
    source = mod.get_source()
    assert source.count("__syncthreads();") == 1  # the script has none: tvmlite adds it
    with cp.installed():
        b = tvm.nd.array(np.zeros(256, "float32"), tvm.cuda())
        mod(tvm.nd.array(a, tvm.cuda()), b)
    np.testing.assert_array_equal(b.numpy(), want)
    racy = source.replace("__syncthreads();", "")
    with pytest.raises(cp.DataRaceError):
        launch(racy, "shift_kernel", (2,), (128,), cp.asarray(a), cp.zeros(256, "float32"))


def test_barrier_divergence_raises() -> None:
    src = """
    extern "C" __global__ void diverge(int* out) {
      if (threadIdx.x < 16) __syncthreads();  // threads 16..63 exit without reaching it
      out[threadIdx.x] = 1;
    }"""
    with pytest.raises(cp.CUDADriverError, match="barrier divergence.*48 of 64 threads exited"):
        launch(src, "diverge", (2,), (64,), cp.zeros(64, "int32"))


def test_syncwarp_is_a_barrier_of_one_warp() -> None:
    src = """
    extern "C" __global__ void warp_reverse(int* out) {
      __shared__ int s[64];
      const int t = threadIdx.x;
      if (t < 32) {  // only warp 0 takes part: no block-wide barrier
        s[t] = t;
        __syncwarp();
        out[t] = s[31 - t];
      }
    }"""
    out = cp.zeros(32, "int32")
    launch(src, "warp_reverse", (1,), (64,), out)
    np.testing.assert_array_equal(out.get(), np.arange(31, -1, -1))


def test_launches_the_driver_refuses() -> None:
    src = 'extern "C" __global__ void __launch_bounds__(128) k(int* p) { p[0] = 1; }'
    kernel = cp.RawModule(code=src).get_function("k")
    p = cp.zeros(1, "int32")
    for grid, block in [((1,), (1025,)), ((1,), (32, 32, 2)), ((0,), (32,)), ((1,), (1, 1, 65))]:
        with pytest.raises(cp.CUDADriverError, match="CUDA_ERROR_INVALID_VALUE"):
            kernel(grid, block, (p,))
    with pytest.raises(cp.CUDADriverError, match="OUT_OF_RESOURCES.*__launch_bounds__"):
        kernel((1,), (256,), (p,))
    with pytest.raises(cp.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
        cp.RawModule(code=src).get_function("missing")
    with pytest.raises(cp.CompileException, match="g\\+\\+ failed"):
        cp.RawModule(code=src + "syntax error").get_function("k")


def test_kernel_arguments_are_checked_against_the_parameters() -> None:
    src = 'extern "C" __global__ void k(float* p, int64_t n) { p[threadIdx.x] = (float)n; }'
    kernel = cp.RawModule(code=src).get_function("k")
    p = cp.zeros(4, "float32")
    kernel((1,), (4,), (p, np.int64(7)))
    np.testing.assert_array_equal(p.get(), [7, 7, 7, 7])
    with pytest.raises(TypeError, match="argument 1 .*4 bytes, the parameter 8"):
        kernel((1,), (4,), (p, np.int32(7)))
    with pytest.raises(TypeError, match="takes 2 arguments"):
        kernel((1,), (4,), (p,))
    host = np.zeros(4, "float32")  # a host pointer would crash the process: refused first
    with pytest.raises(cp.CUDADriverError, match="ILLEGAL_ADDRESS"):
        kernel((1,), (4,), (np.uint64(host.ctypes.data), np.int64(7)))


def test_fp16_arithmetic_rounds_to_half() -> None:
    src = """
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const half* a, const half* b, half* prod, half* sum, float* f) {
      const int i = threadIdx.x;
      prod[i] = a[i] * b[i];
      sum[i] = a[i] + b[i];
      f[i] = __half2float(__float2half_rn(__half2float(a[i]) / 3.0f));
    }"""
    a = np.array([300, 1, 0.1, -2.5, 1e-4, 60000], "float16")
    b = np.array([300, 2.0**-11, 3, 4, 1e-4, 2], "float16")
    da, db = cp.asarray(a), cp.asarray(b)
    prod, add, f = cp.zeros(6, "float16"), cp.zeros(6, "float16"), cp.zeros(6, "float32")
    launch(src, "k", (1,), (6,), da, db, prod, add, f)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(prod.get(), a * b)  # 300 * 300 overflows half: inf
    np.testing.assert_array_equal(add.get(), a + b)  # 1 + 2**-11 rounds to 1 (ties to even)
    np.testing.assert_array_equal(f.get(), (a.astype("float32") / 3).astype("float16"))
    assert np.isinf(prod.get()[0]) and add.get()[1] == 1


def test_bf16_rounds_to_nearest_even() -> None:
    src = """
    #include <cuda_bf16.h>
    extern "C" __global__ void k(const float* x, float* y, float* twice) {
      const int i = threadIdx.x;
      const __nv_bfloat16 h = __float2bfloat16_rn(x[i]);
      y[i] = __bfloat162float(h);
      twice[i] = __bfloat162float(h + h);
    }"""
    x = RNG.standard_normal(64).astype("float32")
    u = x.view("uint32")
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype("uint32").view("float32")
    y, twice = cp.zeros(64, "float32"), cp.zeros(64, "float32")
    launch(src, "k", (1,), (64,), cp.asarray(x), y, twice)
    np.testing.assert_array_equal(y.get(), want)
    np.testing.assert_array_equal(twice.get(), 2 * want)


def test_device_arrays_are_not_host_arrays() -> None:
    x = cp.asarray(np.arange(6, dtype="float32").reshape(2, 3))
    assert not isinstance(x, np.ndarray) and hasattr(x, "__cuda_array_interface__")
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(x)
    with pytest.raises(TypeError):
        x + np.ones(3, "float32")  # numpy operands are refused, as by CuPy
    with pytest.raises(TypeError, match="Unsupported type"):
        cp.maximum(np.ones(3), 0)
    with pytest.raises(TypeError, match="CPU arrays cannot be directly imported"):
        cp.from_dlpack(np.ones(3))
    y = cp.maximum(x - 2, 0)
    assert isinstance(y, cp.ndarray) and isinstance(y.sum(), cp.ndarray)
    np.testing.assert_array_equal(y.get(), np.maximum(np.arange(6).reshape(2, 3) - 2, 0))
    np.testing.assert_array_equal((x @ x.T).get(), x.get() @ x.get().T)
    out = cp.empty((2, 3), "float32")
    assert cp.maximum(x, 1, out=out) is out and out.get().min() == 1
    assert x.__dlpack_device__() == (2, 0)
    view = cp.from_dlpack(x)
    view[0, 0] = 42
    assert x.get()[0, 0] == 42 and view.data.ptr == x.data.ptr
    assert x.T.get().shape == (3, 2) and cp.zeros(0).data.ptr == 0
    assert cp.ascontiguousarray(cp.asarray(np.float32(1))).shape == (1,)  # as in CuPy
