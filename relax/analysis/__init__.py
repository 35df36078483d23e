"""`tvm.relax.analysis`: questions asked of relax functions and modules."""

from typing import Any

from ...ir.analysis import (
    all_global_vars, all_vars, bound_vars, free_vars, get_var2val, name_to_binding,
)
from ...ir.well_formed import well_formed
from ...transforms.simple_passes import remove_unused as remove_all_unused


def check_well_formed(obj: Any, check_ty: bool = True) -> bool:
    """TVM 0.27's `well_formed` that answers False, never raises, for an ill-formed program."""
    try:
        return well_formed(obj, check_ty)
    except ValueError:
        return False


__all__ = ["all_global_vars", "all_vars", "bound_vars", "check_well_formed", "free_vars",
           "get_var2val", "name_to_binding", "remove_all_unused", "well_formed"]
