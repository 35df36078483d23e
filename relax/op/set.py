"""`tvm.relax.op.set`: TVM 0.27's `set` operators (builders from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))
