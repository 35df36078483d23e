"""`tvm.relax.op.image`: the registered `relax.image.*` operators (see ir/ops/)."""

from ._registry import builders

globals().update(builders("image"))
