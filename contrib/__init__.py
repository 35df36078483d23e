"""`tvm.contrib`: the helpers TVM code imports from here (`utils.tempdir`)."""

from . import tvmjs, utils  # noqa: F401

__all__ = ["tvmjs", "utils"]
