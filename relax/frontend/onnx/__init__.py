"""`tvm.relax.frontend.onnx` (frontend/onnx/): the names, re-exported."""

from ....frontend.onnx import *  # noqa: F401,F403
from ....frontend.onnx import __all__  # noqa: F401
