"""`tvm.relax.frontend`: the model frontends, which live in the `frontend/` layer.

Each subpackage here (`nn`, `torch`, `onnx`) is a thin module re-exporting the layer's names,
so `from tvmlite.relax.frontend.nn import Module` is the one `tvmlite.frontend.nn.Module`.
"""

from ...frontend import detach_params  # noqa: F401
from . import nn, onnx, torch  # noqa: F401

__all__ = ["detach_params", "nn", "onnx", "torch"]
