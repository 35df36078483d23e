"""GPU matmul benchmark: tvmlite's shared-memory tiled matmul vs CuPy (cuBLAS) vs Apache TVM.

    .venv/bin/python bench/gpu.py            # N = 1024, 2048
    .venv/bin/python bench/gpu.py 4096       # other sizes

Needs CuPy and an NVIDIA GPU (exits with a message otherwise). The tvmlite kernels are the
ones the GPU tests check: the hand-written tiled matmul (tests/gpu/gpu_kernels.py: 64x64 block
tiles, 16x16 threads, 4x4 register tiles, K staged through shared memory 16 at a time) and the
MLC course's schedule of the plain matmul (tests/gpu/mlc_gpu_chapter.py, float4 tile fetches).
Times are CUDA-event medians of 20 runs after a warm-up; the goal is at least 0.5x cuBLAS.
Apache TVM's CUDA build runs the same tiled kernel when TVM with CUDA is importable (it is
skipped otherwise).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "gpu"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def gpu_ms(cupy: Any, fn: Callable[[], Any], runs: int = 20) -> float:
    """Median milliseconds per call, timed with CUDA events on the current stream."""
    fn()
    times = []
    for _ in range(runs):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def tvmlite_case(cupy: Any, n: int, a: Any, b: Any) -> float:
    import gpu_kernels

    import tvmlite as tvm

    return _time_kernel(cupy, tvm.build(gpu_kernels.tiled_matmul(n), target="cuda"), "matmul",
                        n, a, b)


def mlc_case(cupy: Any, n: int, a: Any, b: Any) -> float:
    """The MLC course's schedule of the plain matmul (tests/gpu/mlc_gpu_chapter.py): 8x8
    register tiles per thread, 64x64 block tiles, A/B tiles of depth 8 fetched into shared
    memory by all 64 threads with float4 loads; barriers inserted by tvmlite."""
    from mlc_gpu_chapter import blocking_with_shared, matmul_module

    import tvmlite as tvm

    sch = blocking_with_shared(tvm.tir.Schedule(matmul_module(n)), 8, 8, 8, 8, 8)
    return _time_kernel(cupy, tvm.build(sch.mod, target="cuda"), "main", n, a, b)


def _time_kernel(cupy: Any, mod: Any, name: str, n: int, a: Any, b: Any) -> float:
    """Checks `mod[name](a, b, c)` against cupy's matmul, then times it (median ms)."""
    import tvmlite as tvm

    dev = tvm.cuda()
    ta, tb = tvm.nd.array(a, dev), tvm.nd.array(b, dev)
    tc = tvm.nd.empty((n, n), "float32", dev)
    f = mod[name]
    f(ta, tb, tc)
    err = float(np.abs(tc.numpy() - (cupy.asnumpy(a) @ cupy.asnumpy(b))).max())
    if err > 1e-2 * n ** 0.5:
        raise SystemExit(f"tvmlite {name} N={n} is wrong: max error {err}")
    return gpu_ms(cupy, lambda: f(ta, tb, tc))


def tvm_case(cupy: Any, n: int, a: Any, b: Any) -> float | None:
    """Apache TVM compiling the same TVMScript (TVM 0.27 spells `T` as tvm.script.tirx);
    None when TVM or its CUDA runtime is unavailable."""
    try:
        import inspect

        import gpu_kernels
        import tvm
        from common import load_module_source

        if not tvm.cuda().exist:
            return None
        src = "from typing import Any\nfrom tvm.script import tirx as T\n"
        mod = load_module_source(src + inspect.getsource(gpu_kernels.tiled_matmul), "tvm_mm")
        ex = tvm.compile(mod.tiled_matmul(n), target={"kind": "cuda"})
        c = cupy.empty((n, n), cupy.float32)
        ta, tb, tc = (tvm.runtime.from_dlpack(x) for x in (a, b, c))
        f = ex["matmul"]
        return gpu_ms(cupy, lambda: f(ta, tb, tc))
    except Exception as err:  # NOTE: a TVM problem must not hide tvmlite's numbers
        print(f"(Apache TVM case skipped: {type(err).__name__}: {err})")
        return None


def main(sizes: list[int]) -> None:
    try:
        from tvmlite.vm.cuda import cupy_module

        cupy = cupy_module()
    except Exception as err:
        raise SystemExit(f"bench/gpu.py needs CuPy and an NVIDIA GPU: {err}") from None
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"GPU: {name}")
    print("ratio = cuBLAS time / tvmlite time (higher is better; the goal is >= 0.5)")
    print(f"{'N':>6} {'cuBLAS ms':>10} {'tvmlite ms':>11} {'ratio':>7} {'TFLOP/s':>8} "
          f"{'MLC sched ms':>13} {'ratio':>7} {'TVM ms':>8}")
    for n in sizes:
        rng = cupy.random.default_rng(0)
        a = rng.standard_normal((n, n), dtype=cupy.float32)
        b = rng.standard_normal((n, n), dtype=cupy.float32)
        c = cupy.empty((n, n), cupy.float32)
        blas = gpu_ms(cupy, lambda: cupy.matmul(a, b, out=c))
        ours = tvmlite_case(cupy, n, a, b)
        mlc = mlc_case(cupy, n, a, b)
        theirs = tvm_case(cupy, n, a, b)
        tflops = 2 * n**3 / (ours * 1e-3) / 1e12
        tvm_text = f"{theirs:8.3f}" if theirs is not None else f"{'n/a':>8}"
        print(f"{n:>6} {blas:10.3f} {ours:11.3f} {blas / ours:6.2f}x {tflops:8.2f} "
              f"{mlc:13.3f} {blas / mlc:6.2f}x {tvm_text}")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [1024, 2048])
