"""`tvm.testing`: the helpers TVM's tests use (testing/pytest_helpers.py) and model workloads
for tests, tutorials and benchmarks (testing/models.py)."""

from . import pytest_helpers as utils  # noqa: F401 (tvm.testing.utils)
from .models import (  # noqa: F401
    VGG11_LAYERS, numpy_vgg11, vgg11, vgg11_param_shapes, vgg11_params, vgg11_source,
)
from .pytest_helpers import (  # noqa: F401
    assert_allclose, device_enabled, enabled_targets, fixture, is_ampere_or_newer, main,
    parameter, run_with_gpu_lock,
)
