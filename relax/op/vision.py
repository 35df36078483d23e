"""`tvm.relax.op.vision`: TVM 0.27's `vision` operators (builders from `relax.op`)."""

from ._groups import members as _members

globals().update(_members(__name__))

from ._registry import builders as _builders  # noqa: E402

globals().update(_builders("vision"))  # the registered relax.vision.* operators
