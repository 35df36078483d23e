"""High-level relax operators (`R.add`, `R.nn.conv2d`, ...) registered by name in `ir.op`.

Importing this package registers them; `relax.op` exposes the makers as functions.
"""

from . import (  # noqa: F401 (registers the operators)
    bitwise, creation, elementwise, indexing, linalg_stats, losses, manipulate, math_ext, nn_ext,
    qdq_search, reduce_nn, runtime_ops, scatter_set,
)
from . import vision  # noqa: F401 (registers R.vision.*)
from . import memory  # noqa: F401 (registers R.memory.*, R.vm.*, R.builtin.alloc_tensor)
from . import nn3d  # noqa: F401 (registers R.nn.conv3d and the 3-d pools)
from . import layout  # noqa: F401 (registers R.layout_transform)
from . import inspect_ops  # noqa: F401,E402 (registers relax.inspect.*)
from . import image_ext  # noqa: F401 (registers R.image.resize3d, grid_sample)
from . import vision_nms  # noqa: F401 (registers R.vision.get_valid_counts)
from . import grad  # noqa: F401 (registers R.grad.*)
from .base import OpError
from .elementwise import astype, where
from .manipulate import (
    broadcast_to, concat, expand_dims, flatten, full, matmul, ones, permute_dims, reshape,
    split, squeeze, strided_slice, take, zeros,
)
from .reduce_nn import (
    adaptive_avg_pool2d, batch_norm, conv2d, dropout, layer_norm, log_softmax, rms_norm,
    softmax,
)

__all__ = [
    "OpError", "astype", "where", "broadcast_to", "concat", "expand_dims", "flatten", "full",
    "matmul", "ones", "permute_dims", "reshape", "split", "squeeze", "strided_slice", "take",
    "zeros", "adaptive_avg_pool2d", "batch_norm", "conv2d", "dropout", "layer_norm",
    "log_softmax", "rms_norm", "softmax",
]
