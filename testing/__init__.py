"""`tvm.testing`: the helpers TVM's tests use (testing/pytest_helpers.py, markers.py,
compare.py, env.py) and model workloads for tests, tutorials and benchmarks (testing/models.py)."""

from . import env  # noqa: F401 (tvm.testing.env.has_cuda() ...)
from . import utils  # noqa: F401 (tvm.testing.utils)
from .compare import CompareBeforeAfter  # noqa: F401
from .numeric_grad import check_numerical_grads  # noqa: F401
from .markers import (  # noqa: F401
    IS_IN_CI, SKIP_SLOW_TESTS, requires_cublas, requires_cuda, requires_cuda_compute_version,
    requires_cudagraph, requires_cudnn, requires_gpu, requires_hexagon, requires_llvm,
    requires_metal, requires_multi_gpu, requires_nccl, requires_nvptx, requires_opencl,
    requires_package, requires_rocm, requires_tensorcore, requires_vulkan, requires_x86_avx512,
    requires_x86_vnni, skip_if_32bit, skip_if_wheel_test, slow, uses_gpu,
)
from .models import (  # noqa: F401
    VGG11_LAYERS, numpy_vgg11, vgg11, vgg11_param_shapes, vgg11_params, vgg11_source,
)
from .pytest_helpers import (  # noqa: F401
    DEFAULT_TEST_TARGETS, assert_allclose, assert_prim_expr_equal, device_enabled,
    enabled_targets, fixture, generate_random_array, identity_after, is_ampere_or_newer, main,
    np_dtype_from_str, object_use_count, parameter, run_with_gpu_lock, strtobool,
)
