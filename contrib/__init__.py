"""`tvm.contrib`: the helpers TVM code imports from here (`utils.tempdir`)."""

from . import thrust, tvmjs, utils  # noqa: F401

__all__ = ["thrust", "tvmjs", "utils"]
