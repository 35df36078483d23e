"""`tvm.relax.backend.contrib`: TVM's contributed BYOC backends as tvmlite has them."""

from . import example_npu, tensorrt  # noqa: F401

__all__ = ["example_npu", "tensorrt"]
