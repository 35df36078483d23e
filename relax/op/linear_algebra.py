"""`tvm.relax.op.linear_algebra`: TVM 0.27's linear-algebra operators (from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))
