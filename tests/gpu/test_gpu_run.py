"""GPU runs against numpy: kernels by tvm.build, the lecture MLP on the VM, tensors on tvm.cuda().

Every test runs on CuPy and a CUDA GPU when there is one, else on the CPU emulator of CuPy
(cupy_emulator.py: kernels compiled by g++, threads switching only at barriers); the test id
says which (`[cupy]` / `[emulator]`), see conftest.py. Without either they skip, saying why.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gpu_kernels as gk
import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.vm.cuda import cupy_module
from tvmlite.vm.registry import remove_global_func

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lecture_modules  # noqa: E402


pytestmark = pytest.mark.usefixtures("cuda_backend")
RNG = np.random.default_rng(0)


def gpu(a: np.ndarray) -> tvm.nd.NDArray:
    return tvm.nd.array(a, tvm.cuda())


def run(func, *arrays: np.ndarray) -> list[np.ndarray]:
    mod = tvm.build(func, target="cuda")
    args = [gpu(a) for a in arrays]
    mod(*args)
    return [a.numpy() for a in args]


def test_elementwise_default_schedule() -> None:
    a, b = (RNG.standard_normal((1000, 37)).astype("float32") for _ in range(2))
    *_, c = run(gk.Kernels["add_relu"], a, b, np.zeros_like(a))
    np.testing.assert_allclose(c, np.maximum(a + b, 0), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 1000, 4097])
def test_symbolic_launch(n: int) -> None:
    a = RNG.standard_normal(n).astype("float32")
    _, b = run(gk.Kernels["exp_bound"], a, np.zeros_like(a))
    np.testing.assert_allclose(b, np.exp(a) + np.arange(n) // 3, rtol=1e-5)


def test_reduction() -> None:
    a = RNG.standard_normal((512, 300)).astype("float32")
    _, s = run(gk.Kernels["row_sum"], a, np.zeros(512, "float32"))
    np.testing.assert_allclose(s, a.sum(1), rtol=1e-4, atol=1e-4)


def test_fp16() -> None:
    a = RNG.standard_normal(4096).astype("float16")
    _, b = run(gk.Kernels["half_gelu"], a, np.zeros_like(a))
    x = a.astype("float32")
    np.testing.assert_allclose(b.astype("float32"), x / (1 + np.exp(-1.702 * x)), rtol=2e-2,
                               atol=2e-2)


@pytest.mark.parametrize("n", [256, 1024])
def test_tiled_matmul_with_shared_memory(n: int) -> None:
    a, b = (RNG.standard_normal((n, n)).astype("float32") for _ in range(2))
    *_, c = run(gk.tiled_matmul(n), a, b, np.zeros((n, n), "float32"))
    np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)


def test_lecture_mlp_on_the_vm() -> None:
    x = RNG.standard_normal((1, 784)).astype("float32")
    params = [RNG.standard_normal(s).astype("float32") * 0.1
              for s in [(128, 784), (128,), (10, 128), (10,)]]
    ex = relax.build(lecture_modules.MyModule, target="cuda")
    vm = relax.VirtualMachine(ex, tvm.cuda())
    out = vm["main"](gpu(x), *[gpu(p) for p in params])
    assert out.device == tvm.cuda()
    w0, b0, w1, b1 = params
    ref = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(vm["main"](x, *params).numpy(), ref, rtol=1e-4, atol=1e-4)


def test_registered_function_receives_cupy_arrays() -> None:
    cupy = cupy_module()
    seen = []

    def linear(x, w, b, out):
        seen.append(type(x._arr).__name__)
        xs, ws, bs = (cupy.from_dlpack(t) for t in (x, w, b))
        cupy.from_dlpack(out)[...] = xs @ ws.T + bs

    def relu(x, out):
        cupy.maximum(cupy.from_dlpack(x), 0, out=cupy.from_dlpack(out))

    old = {n: tvm.get_global_func(n, allow_missing=True) for n in ("env.linear", "env.relu")}
    tvm.register_func("env.linear", linear, override=True)
    tvm.register_func("env.relu", relu, override=True)
    try:
        mod = lecture_modules.MyModuleWithExternCall
        vm = relax.VirtualMachine(relax.build(mod, target="cuda"), tvm.cuda())
        x = RNG.standard_normal((1, 784)).astype("float32")
        params = [RNG.standard_normal(s).astype("float32")
                  for s in [(128, 784), (128,), (10, 128), (10,)]]
        out = vm["main"](gpu(x), *[gpu(p) for p in params])
    finally:
        for name, f in old.items():
            if f is None:
                remove_global_func(name)
            else:
                tvm.register_func(name, f, override=True)
    w0, b0, w1, b1 = params
    ref = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-3, atol=1e-3)
    assert seen and set(seen) == {"ndarray"} and out.device == tvm.cuda()


# NOTE: tvm.nd.from_dlpack is defined in vm/ndarray.py but not exported by nd.py (library bug)
def test_ndarray_on_gpu_round_trips() -> None:
    cupy = cupy_module()
    a = RNG.standard_normal((3, 4)).astype("float32")
    g = gpu(a)
    assert g.device == tvm.cuda() and g.shape == (3, 4) and g.dtype == "float32"
    np.testing.assert_array_equal(g.numpy(), a)
    np.testing.assert_array_equal(g.copyto(tvm.cpu()).numpy(), a)
    np.testing.assert_array_equal(g.copyto(tvm.cuda()).numpy(), a)
    view = cupy.from_dlpack(g)
    view[0, 0] = 42.0
    assert g.numpy()[0, 0] == 42.0  # DLPack shares memory
    back = tvm.nd.from_dlpack(view)
    assert back.device == tvm.cuda() and back._ptr == g._ptr


@I.ir_module
class AddScalarConstant:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.add(x, R.const(2.0, "float32"))  # a 0-d constant the VM copies to the GPU
            R.output(y)
        return y


# NOTE: vm/cuda.py init_device_array uses cupy.ascontiguousarray, which (like numpy's) makes a
# 0-d array 1-d, so scalars on tvm.cuda() get shape (1,) (library bug)
def test_scalar_tensors_keep_rank_0_on_the_gpu() -> None:
    x = RNG.standard_normal(4).astype("float32")
    vm = relax.VirtualMachine(relax.build(AddScalarConstant, target="cuda"), tvm.cuda())
    np.testing.assert_allclose(vm["main"](gpu(x)).numpy(), x + 2)
    assert gpu(np.array(3, "float32")).shape == ()


def test_wrong_device_argument_is_refused() -> None:
    mod = tvm.build(gk.Kernels["row_sum"], target="cuda")
    with pytest.raises(ValueError, match="parameter 'A'.*cpu"):
        mod(tvm.nd.array(np.zeros((512, 300), "float32")), gpu(np.zeros(512, "float32")))
    with pytest.raises(ValueError, match="host memory"):
        mod(np.zeros((512, 300), "float32"), gpu(np.zeros(512, "float32")))
