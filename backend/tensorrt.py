"""`tensorrt` patterns and `partition_for_tensorrt` (`relax.backend.contrib.tensorrt`).

tvmlite cannot run NVIDIA TensorRT: no `relax.ext.tensorrt` codegen is registered, so TVM's
tutorials see `has_tensorrt` False and skip the build. What works is the part that is pure
Python in TVM too: the pattern table (`tensorrt.nn.conv2d`, `tensorrt.add`, ... for the ops
tvmlite has) and the partitioning, so users can see what TensorRT would take.
"""

from __future__ import annotations

from typing import Any

from ..ir.dpl import is_op, wildcard
from ..ir.module import IRModule
from ..transforms.fuse_by_pattern import FuseOpsByPattern
from ..transforms.run_codegen import MergeCompositeFunctions
from .pattern_registry import get_patterns_with_prefix, register_patterns

_UNARY = ("nn.relu", "sigmoid", "tanh", "exp", "log", "sqrt", "abs", "negative", "sin", "cos",
          "floor", "ceil", "erf", "nn.silu", "nn.softmax", "nn.max_pool2d", "nn.avg_pool2d",
          "nn.adaptive_avg_pool2d", "reshape", "nn.layer_norm")
_BINARY = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum")


def _patterns() -> list[tuple[Any, ...]]:
    out = []
    conv = is_op("relax.nn.conv2d")(wildcard(), wildcard())
    out.append(("tensorrt.nn.conv2d", conv, {"root": conv}))
    for name in _BINARY:
        root = is_op(f"relax.{name}")(wildcard(), wildcard())
        out.append((f"tensorrt.{name}", root, {"root": root}))
    for name in _UNARY:
        arity = 3 if name == "nn.layer_norm" else 2 if name == "reshape" else 1
        root = is_op(f"relax.{name}")(*[wildcard() for _ in range(arity)])
        out.append((f"tensorrt.{name}", root, {"root": root}))
    return out


def partition_for_tensorrt(mod: IRModule, **_: Any) -> IRModule:
    """The operators TensorRT takes, grouped into `Codegen: "tensorrt"` functions."""
    mod = FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True,
                           annotate_codegen=False)(mod)
    return MergeCompositeFunctions()(mod)


register_patterns(_patterns())
