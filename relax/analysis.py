"""`tvm.relax.analysis`: questions asked of relax functions and modules."""

from ..ir.analysis import (
    all_global_vars, all_vars, bound_vars, free_vars, get_var2val, name_to_binding,
)
from ..ir.well_formed import well_formed
from ..transforms.simple_passes import remove_unused as remove_all_unused

__all__ = ["all_global_vars", "all_vars", "bound_vars", "free_vars", "get_var2val",
           "name_to_binding", "remove_all_unused", "well_formed"]
