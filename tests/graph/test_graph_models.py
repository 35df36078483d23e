"""The lecture MLP with R.matmul/R.add/R.nn.relu and VGG-11 (seed 000) against numpy, with the
default build (legalize) and with the zero pipeline (fusion)."""

import os
import sys

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import from_source

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import graph_models as gm  # noqa: E402

HEADER = "from tvmlite.script import ir as I, relax as R, tir as T\n"


def _run(src: str, arrays, pipeline: str):
    mod = from_source(HEADER + src)
    ex = tvm.compile(mod, relax_pipeline=pipeline)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in arrays]).numpy()


@pytest.mark.parametrize("pipeline", ["default", "zero"])
def test_high_level_mlp(pipeline):
    arrays = gm.mlp_params(np.random.default_rng(0))
    x, w0, b0, w1, b1 = arrays
    ref = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(_run(gm.MLP_SRC, arrays, pipeline), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pipeline", ["default", "zero"])
def test_vgg11_32x32(pipeline):
    arrays = gm.vgg11_params(32, 256, 100, np.random.default_rng(0))
    out = _run(gm.vgg11_src(32, 256, 100), arrays, pipeline)
    np.testing.assert_allclose(out, gm.vgg11_numpy(arrays), rtol=1e-4, atol=1e-6)
    assert out.shape == (1, 100)
