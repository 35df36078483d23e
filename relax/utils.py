"""`tvm.relax.utils`: helpers TVM keeps beside the IR (copying functions, converting values)."""

from ..transforms.function_copy import copy_with_new_vars  # noqa: F401
from ..transforms.relax_utils import convert_to_expr  # noqa: F401

__all__ = ["convert_to_expr", "copy_with_new_vars"]
