"""`tvm.relax.op.qdq`: TVM 0.27's `qdq` operators (builders from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))
