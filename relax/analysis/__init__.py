"""`tvm.relax.analysis`: questions asked of relax functions and modules."""

from typing import Any

from ...ir.analysis import (
    all_global_vars, all_vars, bound_vars, free_vars, get_var2val, name_to_binding,
)
from ...ir.layout_suggest import suggest_layout_transforms
from ...ir.memory_estimate import estimate_memory_usage
from ...ir.reshape_pattern import has_reshape_pattern
from ...ir.type_analysis import (
    BaseCheckResult, collect_non_negative_expressions, definable_tir_vars_in_type,
    derive_call_ret_type, erase_to_well_defined, get_static_type, tir_vars_in_type,
    type_base_check, type_lca,
)
from ...ir.usage_analysis import (
    computable_at_compile_time, contains_impure_call, defined_symbolic_vars, detect_recursion,
    free_symbolic_vars, post_order_visit, udchain, used_vars,
)
from ...ir.well_formed import well_formed
from ...transforms.simple_passes import remove_unused as remove_all_unused


def check_well_formed(obj: Any, check_ty: bool = True) -> bool:
    """TVM 0.27's `well_formed` that answers False, never raises, for an ill-formed program."""
    try:
        return well_formed(obj, check_ty)
    except ValueError:
        return False


# TVM before 0.27 called struct info what 0.27 calls type
struct_info_base_check, struct_info_lca = type_base_check, type_lca
derive_call_ret_struct_info = derive_call_ret_type
tir_vars_in_struct_info, definable_tir_vars_in_struct_info = (
    tir_vars_in_type, definable_tir_vars_in_type)

__all__ = ["BaseCheckResult", "all_global_vars", "all_vars", "bound_vars", "check_well_formed",
           "collect_non_negative_expressions", "computable_at_compile_time",
           "contains_impure_call", "definable_tir_vars_in_struct_info",
           "definable_tir_vars_in_type", "defined_symbolic_vars", "derive_call_ret_struct_info",
           "derive_call_ret_type", "detect_recursion", "estimate_memory_usage",
           "erase_to_well_defined", "free_vars",
           "free_symbolic_vars", "get_static_type", "get_var2val", "has_reshape_pattern",
           "name_to_binding", "post_order_visit", "remove_all_unused", "struct_info_base_check",
           "suggest_layout_transforms",
           "struct_info_lca", "tir_vars_in_struct_info", "tir_vars_in_type", "type_base_check",
           "type_lca", "udchain", "used_vars", "well_formed"]
