"""Model frontends (`tvm.relax.frontend`): build IRModules from Python model definitions.

`nn` is TVM's PyTorch-like API: subclass `nn.Module`, then `export_tvm(spec)` traces the
module's methods into relax functions. `torch.from_exported_program` imports a PyTorch model
captured by `torch.export`; `onnx.from_onnx` imports an ONNX model; `detach_params` splits the
weights it kept as inputs from the module.
"""

from . import nn, onnx, torch
from .common import detach_params

__all__ = ["detach_params", "nn", "onnx", "torch"]
