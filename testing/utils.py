"""`tvm.testing.utils`: TVM's module of that name (testing/pytest_helpers.py and
check_numerical_grads)."""

from .numeric_grad import check_numerical_grads  # noqa: F401
from .pytest_helpers import *  # noqa: F401,F403
from .pytest_helpers import (  # noqa: F401 (names a star import leaves out)
    DEFAULT_TEST_TARGETS, assert_allclose, device_enabled, enabled_targets,
)
