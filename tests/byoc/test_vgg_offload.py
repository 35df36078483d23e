"""Seed 000's journey on Relax: VGG-11's conv2d+bias+relu and dense layers offloaded to blas."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, testing
from tvmlite.relax.backend.pattern_registry import get_patterns_with_prefix

IMAGE = 32


@pytest.fixture(scope="module")
def vgg():
    mod, params = testing.vgg11(image_size=IMAGE, num_classes=10, hidden=256)
    data = np.random.default_rng(3).standard_normal((1, 3, IMAGE, IMAGE)).astype("float32")
    return mod, params, data, testing.numpy_vgg11(data, params)


def offload(mod):
    partitioned = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("blas"),
                                                   annotate_codegen=True)(mod)
    return relax.transform.RunCodegen()(partitioned)


def run(mod, *args):
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](*args).numpy()


def extern_calls(mod):
    return [b.value for blk in mod["main"].body.blocks for b in blk.bindings
            if getattr(b.value.op, "name", "") == "relax.call_dps_packed"]


def test_weights_bound_as_constants(vgg):
    mod, params, data, reference = vgg
    bound = relax.transform.BindParams("main", params)(mod)
    offloaded = offload(bound)
    assert len(extern_calls(offloaded)) == 8 + 3  # every conv block and every dense layer
    np.testing.assert_allclose(run(offloaded, data), reference, rtol=1e-4, atol=1e-7)


def test_weights_as_inputs(vgg):
    mod, params, data, reference = vgg
    offloaded = offload(mod)
    out = run(offloaded, data, *params.values())
    np.testing.assert_allclose(out, reference, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(out, run(mod, data, *params.values()), rtol=1e-4, atol=1e-7)
