"""Whole models built for `target="cuda"` and run by a VM on `tvm.cuda()`, against numpy:
legalized high-level ops (convolution, pooling, dense, softmax, layer norm, reductions,
argmax, concat/split, where) through the default GPU schedule, symbolic batch sizes included.
On CuPy with a GPU, or on the CuPy emulator (see conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.testing import numpy_vgg11, vgg11

pytestmark = pytest.mark.usefixtures("cuda_backend")
RNG = np.random.default_rng(5)


def gpu_vm(mod) -> relax.VirtualMachine:
    return relax.VirtualMachine(relax.build(mod, target="cuda"), tvm.cuda())


def test_vgg11_on_the_gpu() -> None:
    mod, params = vgg11(batch=2, image_size=32, num_classes=10, hidden=64)
    data = RNG.standard_normal((2, 3, 32, 32)).astype("float32")
    vm = gpu_vm(relax.transform.LegalizeOps()(mod))
    out = vm["main"](tvm.nd.array(data, tvm.cuda()),
                     *[tvm.nd.array(p, tvm.cuda()) for p in params.values()])
    np.testing.assert_allclose(out.numpy(), numpy_vgg11(data, params), rtol=1e-3, atol=1e-3)


@I.ir_module
class Mixed:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 16), "float32"),
             g: R.Tensor((16,), "float32")):
        with R.dataflow():
            h = R.matmul(x, w)
            s = R.nn.softmax(h, axis=-1)
            ln = R.nn.layer_norm(h, g, g, axes=[-1])
            parts = R.split(ln, 2, axis=1)
            c = R.concat((parts[1], parts[0]), axis=1)
            m = R.mean(c, axis=1, keepdims=True)
            pos = R.where(R.greater(c, m), c, R.multiply(c, R.const(0.5, "float32")))
            top = R.argmax(s, axis=1)
            total = R.sum(pos, axis=0)
            R.output(top, total, pos)
        return (top, total, pos)


def _mixed_reference(x: np.ndarray, w: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, ...]:
    h = x @ w
    s = np.exp(h - h.max(1, keepdims=True))
    s /= s.sum(1, keepdims=True)
    mu, var = h.mean(1, keepdims=True), h.var(1, keepdims=True)
    ln = (h - mu) / np.sqrt(var + 1e-5) * g + g
    c = np.concatenate([ln[:, 8:], ln[:, :8]], axis=1)
    pos = np.where(c > c.mean(1, keepdims=True), c, c * 0.5)
    return s.argmax(1), pos.sum(0), pos


@pytest.mark.parametrize("n", [1, 7])
def test_many_ops_with_a_symbolic_batch(n: int) -> None:
    x = RNG.standard_normal((n, 16)).astype("float32")
    w, g = RNG.standard_normal((16, 16)).astype("float32"), RNG.random(16).astype("float32")
    vm = gpu_vm(relax.transform.LegalizeOps()(Mixed))
    top, total, pos = vm["main"](*(tvm.nd.array(v, tvm.cuda()) for v in (x, w, g)))
    want_top, want_total, want_pos = _mixed_reference(x, w, g)
    np.testing.assert_array_equal(top.numpy(), want_top)
    np.testing.assert_allclose(pos.numpy(), want_pos, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(total.numpy(), want_total, rtol=1e-4, atol=1e-4)


@I.ir_module
class TVMScriptModule:
    """TVM's IRModule tutorial: the MLP as printed by its nn frontend."""

    @R.function
    def main(
        x: R.Tensor((1, 784), dtype="float32"),
        fc1_weight: R.Tensor((256, 784), dtype="float32"),
        fc1_bias: R.Tensor((256,), dtype="float32"),
        fc2_weight: R.Tensor((10, 256), dtype="float32"),
        fc2_bias: R.Tensor((10,), dtype="float32"),
    ) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            permute_dims = R.permute_dims(fc1_weight, axes=None)
            matmul = R.matmul(x, permute_dims, out_dtype="void")
            add = R.add(matmul, fc1_bias)
            relu = R.nn.relu(add)
            permute_dims1 = R.permute_dims(fc2_weight, axes=None)
            matmul1 = R.matmul(relu, permute_dims1, out_dtype="void")
            add1 = R.add(matmul1, fc2_bias)
            gv = add1
            R.output(gv)
        return gv


def test_ir_module_tutorial_deploys_on_cpu_and_gpu_with_dlight() -> None:
    from tvmlite.s_tir import dlight as dl

    mod = relax.get_pipeline("zero")(relax.transform.LegalizeOps()(TVMScriptModule))
    raw = RNG.random((1, 784)).astype("float32")
    params = [RNG.standard_normal(s).astype("float32") * 0.1
              for s in [(256, 784), (256,), (10, 256), (10,)]]
    cpu_vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    cpu_out = cpu_vm["main"](tvm.runtime.tensor(raw, tvm.cpu()), *params).numpy()
    with tvm.target.Target("cuda"):
        gpu_mod = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())(mod)
    dev = tvm.device("cuda", 0)
    vm = relax.VirtualMachine(tvm.compile(gpu_mod, target="cuda"), dev)
    gpu_params = [tvm.runtime.tensor(p, dev) for p in params]
    gpu_out = vm["main"](tvm.runtime.tensor(raw, dev), *gpu_params).numpy()
    assert np.allclose(cpu_out, gpu_out, atol=1e-3)
    w1, b1, w2, b2 = params
    np.testing.assert_allclose(cpu_out, np.maximum(raw @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4,
                               atol=1e-5)
