"""`tvm.relax.op.search`: TVM 0.27's `search` operators (builders from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))
