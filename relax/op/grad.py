"""`tvm.relax.op.grad`: the registered `relax.grad.*` operators (ir/ops/grad.py)."""

from ._registry import builders

globals().update(builders("grad"))
