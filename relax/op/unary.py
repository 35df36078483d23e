"""`tvm.relax.op.unary`: TVM 0.27's `unary` operators (builders from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))
