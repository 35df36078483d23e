"""`tvm.relax.op.builtin`: the registered `relax.builtin.*` operators (see ir/ops/)."""

from ._registry import builders

globals().update(builders("builtin"))
