"""ONNX frontend (`tvm.relax.frontend.onnx`): `from_onnx` imports an `onnx.ModelProto`."""

from .importer import UnsupportedOnnxOpsError, from_onnx
from .registry import CONVERTERS

__all__ = ["CONVERTERS", "UnsupportedOnnxOpsError", "from_onnx"]
