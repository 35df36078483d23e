"""`tvm.relax.testing`: helpers for testing relax programs (tvmlite.testing's, by TVM's path)."""

from ...testing import assert_allclose  # noqa: F401

__all__ = ["assert_allclose"]
