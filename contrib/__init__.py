"""`tvm.contrib`: the helpers TVM code imports from here (`utils.tempdir`)."""

from . import utils  # noqa: F401

__all__ = ["utils"]
