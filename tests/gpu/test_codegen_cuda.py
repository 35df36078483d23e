"""CUDA codegen without a GPU: the generated C's structure, launch plans, `nvcc -ptx` compile
checks, the default GPU schedule (run on the CPU with its thread loops made serial), targets
and the errors users see."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gpu_kernels as gk
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import tir as T
from tvmlite.tir.kernel_build import build_kernel_library, parse_target
from tvmlite.tir.codegen_c import CodegenError
from tvmlite.tir.gpu_default_schedule import default_gpu_schedule, has_thread_binding
from tvmlite.vm.cuda import CudaKernelLibrary, CudaUnavailableError, eval_dim

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lecture_modules  # noqa: E402

NVCC = shutil.which("nvcc")


def cuda_lib(func: Any, name: str = "k") -> CudaKernelLibrary:
    lib = build_kernel_library({name: func}, "cuda")
    assert isinstance(lib, CudaKernelLibrary)
    return lib


def kernel_text(src: str, symbol: str) -> str:
    start = src.index(f" {symbol}(")
    return src[start:src.index("\n}\n", start)]


# -- structure ---------------------------------------------------------------------------------


def test_elementwise_gets_default_schedule() -> None:
    lib = cuda_lib(gk.Kernels["add_relu"])
    body = kernel_text(lib.source, "k_kernel")
    assert 'extern "C" __global__ void __launch_bounds__(256) k_kernel(' in lib.source
    assert "float* __restrict__ A" in lib.source
    assert "blockIdx.x" in body and "threadIdx.x" in body
    assert "< 37000)" in body  # 37000 is not a multiple of 256: the tail is guarded
    (spec,) = lib.functions["k"].launches
    assert spec.grid == (-(-37000 // 256), 1, 1) and spec.block == (256, 1, 1)


def test_symbolic_launch_dims_follow_shape_vars() -> None:
    lib = cuda_lib(gk.Kernels["exp_bound"])
    (spec,) = lib.functions["k"].launches
    assert [eval_dim(d, {"n": 1000}) for d in spec.grid] == [8, 1, 1]
    assert [eval_dim(d, {"n": 1}) for d in spec.grid] == [1, 1, 1]
    assert "int64_t n)" in lib.source and "expf(" in lib.source
    assert lib.signatures["k"].shape_vars == ("n",)


def test_reduction_keeps_init_before_the_loop() -> None:
    body = kernel_text(cuda_lib(gk.Kernels["row_sum"]).source, "k_kernel")
    assert body.index("= 0.0f;") < body.index("for (int k = 0; k < 300; ++k)")
    assert "__launch_bounds__(128)" in cuda_lib(gk.Kernels["row_sum"]).source


def test_tiled_matmul_uses_shared_memory_and_barriers() -> None:
    lib = cuda_lib(gk.tiled_matmul(256))
    body = kernel_text(lib.source, "k_kernel")
    assert "__shared__ __align__(16) float A_sh[1024];" in body
    assert "__shared__ __align__(16) float B_sh[1024];" in body
    assert "float C_loc[16];" in body
    assert body.count("__syncthreads();") == 2
    assert "const int ty = ((int)threadIdx.y);" in body
    (spec,) = lib.functions["k"].launches
    assert spec.grid == (4, 4, 1) and spec.block == (16, 16, 1)


def test_fp16_includes_the_header_and_computes_math_in_float() -> None:
    src = cuda_lib(gk.Kernels["half_gelu"]).source
    assert "#include <cuda_fp16.h>" in src and "half* __restrict__ A" in src
    assert "__float2half_rn(1.702f)" in src and "expf(-__half2float(" in src


def test_lecture_mlp_splits_into_kernels_with_workspace() -> None:
    ex = relax.build(lecture_modules.MyModule, target="cuda")
    lin = ex.kernels.functions["linear0"]
    assert [s.kernel for s in lin.launches] == ["linear0_kernel0", "linear0_kernel1"]
    assert lin.workspace == (("Y", "float32", 128),)
    assert "float* __restrict__ Y)" in ex.kernels.get_source()


def test_build_returns_module_with_source() -> None:
    mod = tvm.build(gk.Kernels["row_sum"], target="cuda")
    assert mod.get_source() == mod.inspect_source() == mod.imported_modules[0].get_source()
    assert "row_sum_kernel" in mod.get_source()


# -- nvcc ---------------------------------------------------------------------------------------

SOURCES = {
    "add_relu": lambda: gk.Kernels["add_relu"], "exp_bound": lambda: gk.Kernels["exp_bound"],
    "row_sum": lambda: gk.Kernels["row_sum"], "half_gelu": lambda: gk.Kernels["half_gelu"],
    "tiled_matmul": lambda: gk.tiled_matmul(1024),
}


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", [*SOURCES, "lecture_mlp"])
def test_nvcc_compiles(name: str, tmp_path: Path) -> None:
    if name == "lecture_mlp":
        src = relax.build(lecture_modules.MyModule, target="cuda").kernels.get_source()
    else:
        src = cuda_lib(SOURCES[name]()).source
    path = tmp_path / f"{name}.cu"
    path.write_text(src)
    res = subprocess.run([NVCC, "-ptx", "-arch=sm_80", str(path), "-o", str(tmp_path / "k.ptx")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr


# -- the default schedule, checked on the CPU ------------------------------------------------


@I.ir_module
class Unbound:
    @T.prim_func
    def colsum_k_outer(A: T.Buffer((70, 33), "float32"), S: T.Buffer((33,), "float32")):
        for k, j in T.grid(70, 33):  # reduction loop outside: must move inside, j bound
            with T.block("S"):
                vk, vj = T.axis.remap("RS", [k, j])
                with T.init():
                    S[vj] = T.float32(0)
                S[vj] = S[vj] + A[vk, vj]

    @T.prim_func
    def total(A: T.Buffer((50,), "float32"), S: T.Buffer((1,), "float32")):
        for k in range(50):  # no spatial loop: runs on one thread
            with T.block("S"):
                vk = T.axis.reduce(50, k)
                with T.init():
                    S[0] = T.float32(0)
                S[0] = S[0] + A[vk]


@pytest.mark.parametrize("name,shapes,ref", [
    ("colsum_k_outer", [(70, 33), (33,)], lambda a: a.sum(0)),
    ("total", [(50,), (1,)], lambda a: a.sum(keepdims=True)),
])
def test_default_schedule_keeps_meaning(name: str, shapes: list, ref: Any) -> None:
    func = default_gpu_schedule(Unbound[name])
    assert has_thread_binding(func)
    cpu = tvm.build(gk.serial_threads(func), target="llvm")
    a = np.random.default_rng(0).standard_normal(shapes[0]).astype("float32")
    out = np.zeros(shapes[1], "float32")
    cpu(a, out)
    np.testing.assert_allclose(out, ref(a), rtol=1e-5, atol=1e-5)
    assert "for (int k = 0; k < 70; ++k)" in cuda_lib(Unbound["colsum_k_outer"]).source


def test_default_schedule_leaves_bound_functions_alone() -> None:
    f = gk.Kernels["row_sum"]
    assert default_gpu_schedule(f) is f


# -- targets and errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("target,arch", [
    ("cuda", "sm_80"), ("cuda -arch=sm_86", "sm_86"), ({"kind": "cuda", "arch": "sm_90"}, "sm_90"),
    ("nvidia/nvidia-a100", "sm_80"), ("nvidia/geforce-rtx-4090", "sm_89"),
])
def test_cuda_targets_parse(target: Any, arch: str) -> None:
    t = parse_target(target)
    assert (t.kind, t.arch) == ("cuda", arch)
    assert parse_target(tvm.target.Target(target)).kind == "cuda"


def test_target_object_builds() -> None:
    with tvm.target.Target("cuda") as tgt:
        assert tvm.target.Target.current() is tgt and tgt.kind.name == "cuda"
        assert "row_sum_kernel" in tvm.build(gk.Kernels["row_sum"], target=tgt).get_source()


@I.ir_module
class Bad:
    @T.prim_func
    def host_loop(A: T.Buffer((4, 128), "float32")):
        for i in range(4):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("A"):
                    vi, vj = T.axis.remap("SS", [i, tx])
                    A[vi, vj] = T.float32(1)


def test_host_side_loop_is_a_clear_error() -> None:
    with pytest.raises(CodegenError, match="host-side loops.*bind loop 'i'"):
        tvm.build(Bad["host_loop"], target="cuda")


def test_thread_bound_function_on_cpu_points_to_cuda() -> None:
    with pytest.raises(Exception, match="CUDA|cuda"):
        tvm.build(gk.Kernels["row_sum"], target="llvm")


def test_running_without_gpu_says_what_is_missing() -> None:
    from tvmlite.vm.cuda import cupy_module

    try:
        cupy_module()
    except CudaUnavailableError:
        pass
    else:
        pytest.skip("a GPU is present: the no-GPU error cannot be observed")
    mod = tvm.build(gk.Kernels["row_sum"], target="cuda")
    with pytest.raises(CudaUnavailableError, match="CuPy"):
        mod(np.zeros((512, 300), "float32"), np.zeros(512, "float32"))
    with pytest.raises(CudaUnavailableError, match="CuPy"):
        tvm.nd.array(np.zeros(3, "float32"), tvm.cuda())
    ex = relax.build(lecture_modules.MyModule, target="cuda")
    with pytest.raises(CudaUnavailableError):
        relax.VirtualMachine(ex, tvm.cuda())


def test_device_mismatch_is_refused() -> None:
    ex = relax.build(lecture_modules.MyModule, target="cuda")
    with pytest.raises(ValueError, match="built for target 'cuda'"):
        relax.VirtualMachine(ex, tvm.cpu())
    cpu_ex = relax.build(lecture_modules.MyModule, target="llvm")
    with pytest.raises(ValueError, match="built for target 'llvm'"):
        relax.VirtualMachine(cpu_ex, tvm.cuda())


# -- dlight ------------------------------------------------------------------------------------


def test_dlight_binds_every_unbound_prim_func_for_the_target_in_scope() -> None:
    from tvmlite.s_tir import dlight as dl

    mod = tvm.IRModule.from_dict({"add_relu": gk.Kernels["add_relu"],
                                  "row_sum": gk.Kernels["row_sum"]})
    with pytest.raises(ValueError, match="needs a target"):
        dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)
    with tvm.target.Target("llvm"):
        assert dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod) is mod  # CPU: nothing to bind
    with tvm.target.Target("cuda"):
        gpu_mod = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())(mod)
    assert has_thread_binding(gpu_mod["add_relu"]) and not has_thread_binding(mod["add_relu"])
    assert gpu_mod["row_sum"] is mod["row_sum"]  # already bound: left as written
    assert [gv.name_hint for gv in gpu_mod.get_global_vars()] == ["add_relu", "row_sum"]
