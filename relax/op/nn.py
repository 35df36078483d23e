"""`tvm.relax.op.nn`: the registered `relax.nn.*` operators (see ir/ops/)."""

from ._registry import builders

globals().update(builders("nn"))
