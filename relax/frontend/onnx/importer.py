"""`tvm.relax.frontend.onnx.importer` (frontend/onnx/importer.py)."""

from ....frontend.onnx.importer import *  # noqa: F401,F403
