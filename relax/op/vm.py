"""`tvm.relax.op.vm`: the registered `relax.vm.*` operators (ir/ops/memory.py)."""

from ._registry import builders

globals().update(builders("vm"))
