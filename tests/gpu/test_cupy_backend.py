"""The `cupy` BYOC backend (backend/cupy.py) against numpy: conv2d+bias+relu and dense layers
offloaded by FuseOpsByPattern + RunCodegen, run by a CPU VM (tensors copied to the GPU and
back) and by a CUDA VM (tensors used in place through DLPack). On CuPy with a GPU, or on the
CuPy emulator (see conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.backend.pattern_registry import get_patterns_with_prefix
from tvmlite.script import ir as I
from tvmlite.script import relax as R

pytestmark = pytest.mark.usefixtures("cuda_backend")
RNG = np.random.default_rng(11)


@I.ir_module
class ConvNet:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             b: R.Tensor((1, 4, 1, 1), "float32"), fw: R.Tensor((10, 256), "float32"),
             fb: R.Tensor((10,), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            cb = R.add(c, b)
            cr = R.nn.relu(cb)
            flat = R.reshape(cr, (2, 256))
            t = R.permute_dims(fw)
            d = R.matmul(flat, t)
            y = R.add(d, fb)
            R.output(y)
        return y


def reference(x, w, b, fw, fb):
    win = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                   (3, 3), axis=(2, 3))
    conv = np.einsum("nchwij,ocij->nohw", win, w)
    return np.maximum(conv + b, 0).reshape(2, 256) @ fw.T + fb


def offloaded(params: dict[str, np.ndarray] | None = None):
    mod = ConvNet if params is None else relax.transform.BindParams("main", params)(ConvNet)
    mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("cupy"),
                                           annotate_codegen=True)(mod)
    mod = relax.transform.RunCodegen()(mod)
    calls = [b.value for blk in mod["main"].body.blocks for b in blk.bindings
             if getattr(b.value.op, "name", "") == "relax.call_dps_packed"]
    assert len(calls) == 2  # conv2d+bias+relu, dense+bias
    return mod


@pytest.mark.parametrize("weights", ["inputs", "constants"])
@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_cupy_backend_matches_numpy(target: str, weights: str) -> None:
    names = ["x", "w", "b", "fw", "fb"]
    args = [RNG.standard_normal(s).astype("float32")
            for s in [(2, 3, 8, 8), (4, 3, 3, 3), (1, 4, 1, 1), (10, 256), (10,)]]
    bound = dict(zip(names[1:], args[1:])) if weights == "constants" else None
    inputs = args[:1] if bound else args
    dev = tvm.cpu() if target == "llvm" else tvm.cuda()
    vm = relax.VirtualMachine(relax.build(offloaded(bound), target), dev)
    out = vm["main"](*[tvm.nd.array(a, dev) for a in inputs])
    assert out.device == dev
    np.testing.assert_allclose(out.numpy(), reference(*args), rtol=1e-4, atol=1e-4)
