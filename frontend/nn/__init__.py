"""A PyTorch-like API that builds IRModules (`from tvm.relax.frontend import nn`).

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(784, 10)

        def forward(self, x):
            return nn.op.relu(self.fc(x))

    mod, params = MLP().export_tvm({"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}})

`core` holds Tensor / Parameter / Module, `op` the functional operators (also reachable as
`nn.<op>`, as in TVM), `modules` the layers, `spec` the input specifications, `exporter` the
tracing, `extern` calls of registered functions, tensor expressions and TIR.
"""

from . import modules, op, spec
from . import visitor
from .containers import ParameterDict, ParameterList
from .kv_cache import KVCache
from .core import (
    Effect, Module, ModuleDict, ModuleList, Parameter, Tensor, get_default_dtype,
    set_default_dtype,
)
from .visitor import Mutator
from .modules import (
    GELU, Attention, Conv1D, Conv2D, Conv3D, ConvTranspose1D, Embedding, GroupNorm, Identity,
    LayerNorm, Linear, ReLU, RMSNorm, SiLU, TimestepEmbedding, Timesteps,
)
from .op import *  # noqa: F403
from .op import __all__ as _op_names

__all__ = [
    "modules", "op", "spec", "visitor", "Effect", "Module", "ModuleDict", "ModuleList",
    "KVCache", "Mutator", "Parameter", "ParameterDict", "ParameterList", "Tensor",
    "get_default_dtype", "set_default_dtype",
    "GELU", "Attention", "Conv1D", "Conv2D", "Conv3D", "ConvTranspose1D", "Embedding", "GroupNorm",
    "Identity", "LayerNorm", "Linear", "ReLU", "RMSNorm", "SiLU", "TimestepEmbedding",
    "Timesteps",
    *_op_names,
]
