"""`tvm.relax.op.memory`: the registered `relax.memory.*` operators (ir/ops/memory.py)."""

from ._registry import builders

globals().update(builders("memory"))
