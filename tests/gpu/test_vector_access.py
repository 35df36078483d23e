"""Vectorized loops as float4 loads and stores on the GPU (tir.vector_access): which indices are
provably contiguous and aligned, the code the MLC cooperative fetch gets, and the launch-time
check that keeps a misaligned buffer away from a float4 kernel."""

from __future__ import annotations

import numpy as np
import pytest
from mlc_gpu_chapter import blocking_with_shared, matmul_module

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.expr import IntImm, Var
from tvmlite.tir.functor import simplify, substitute
from tvmlite.tir.vector_access import lane_base
from tvmlite.vm.cuda import cupy_module

v, t, f, i = (Var(n, "int32") for n in ("v", "t", "f", "i"))


def c(x: int) -> IntImm:
    return IntImm("int32", x)


@pytest.mark.parametrize("index", [
    t * c(4) + v,
    (f * c(256) + t * c(4) + v) // c(8) * c(8) + (f * c(256) + t * c(4) + v) % c(8),
    (i * c(64) + (t * c(4) + v) // c(8)) * c(1024) + (t * c(4) + v) % c(8),
])
def test_contiguous_aligned_lanes_are_found(index) -> None:
    base = lane_base(index, v, 4)
    assert base is not None
    for tv, fv, iv in [(0, 0, 0), (3, 1, 2), (7, 2, 5), (13, 3, 1)]:
        env = {t: tv, f: fv, i: iv}
        lanes = [value(index, {**env, v: k}) for k in range(4)]
        assert lanes == [value(base, env) + k for k in range(4)]  # base + lane, every lane
        assert value(base, env) % 4 == 0  # so a float4 at base is 16-byte aligned


def value(e, env) -> int:
    """The integer `e` takes with its vars set as in `env` (by substitution and folding)."""
    out = simplify(substitute(e, {x: IntImm(x.dtype, val) for x, val in env.items()}))
    assert isinstance(out, IntImm), out
    return out.value


@pytest.mark.parametrize("index", [
    t * c(2) + v,  # a base that is only a multiple of 2: a float4 there would be misaligned
    (t * c(4) + v) // c(2),  # lanes repeat
    t * c(4) + v * c(2),  # strided lanes
    (t * c(2) + v) % c(8),  # the lanes may wrap around 8
    t * t + v,  # nothing known about t * t modulo 4
])
def test_anything_unproven_stays_scalar(index) -> None:
    assert lane_base(index, v, 4) is None


def mlc_matmul_source(n: int = 128) -> str:
    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module(n)), 8, 8, 8, 8, 8)
    return tvm.build(sch.mod, target="cuda").get_source()


def test_the_cooperative_fetch_loads_and_stores_float4() -> None:
    src = mlc_matmul_source()
    assert src.count("*(float4*)(A_shared + ") == 1 and src.count("*(float4*)(B_shared + ") == 1
    assert "= *(float4*)(A + " in src and "= *(float4*)(B + " in src
    assert "__shared__ __align__(16) float A_shared[512];" in src


@T.prim_func
def odd_offsets(A: T.Buffer((130,), "float32"), B: T.Buffer((128,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for vv in T.vectorized(4):
                with T.block("B"):
                    vi = T.axis.spatial(128, tx * 4 + vv)
                    B[vi] = A[vi + 1]  # the source is not 16-byte aligned


def test_an_unaligned_source_keeps_the_loop_scalar() -> None:
    src = tvm.build(odd_offsets, target="cuda").get_source()
    assert "float4" not in src and "#pragma unroll" in src


@pytest.mark.usefixtures("cuda_backend")
def test_a_misaligned_view_is_refused_before_the_float4_kernel_runs() -> None:
    cp = cupy_module()
    n = 128
    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module(n)), 8, 8, 8, 8, 8)
    mod = tvm.build(sch.mod, target="cuda")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n, n)).astype("float32")
    dev = tvm.cuda()
    shifted = cp.zeros(n * n + 1, dtype="float32")[1:].reshape(n, n)  # 4 bytes off
    shifted[...] = cp.asarray(a)
    view = tvm.nd.from_dlpack(shifted)
    out = tvm.nd.empty((n, n), "float32", dev)
    with pytest.raises(ValueError, match="'A' is read or written 16 bytes at a time"):
        mod(view, tvm.nd.array(b, dev), out)
    aligned = tvm.nd.array(a, dev)  # a fresh allocation is aligned: the same call works
    mod(aligned, tvm.nd.array(b, dev), out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.usefixtures("cuda_backend")
def test_the_gpu_bench_cases_run_and_check_their_answers() -> None:
    """bench/gpu.py's kernels at a small size (on the emulator the times mean nothing; what
    this keeps working is the bench itself, for the day a GPU runs it)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import gpu as bench_gpu

    cp = cupy_module()
    rng = np.random.default_rng(1)
    a, b = (cp.asarray(rng.standard_normal((128, 128)).astype("float32")) for _ in range(2))
    assert bench_gpu.tvmlite_case(cp, 128, a, b) > 0
    assert bench_gpu.mlc_case(cp, 128, a, b) > 0
