"""`tvm.relax.transform.legalize_ops.common`: `register_legalize(op_name, f(bb, call))`."""

from ....transforms.legalize.bb_rules import register_legalize  # noqa: F401
