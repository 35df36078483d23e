"""Which of `relax.op`'s names each of TVM 0.27's `relax.op.<file>` submodules holds.

TVM defines its top-level operators in one file per kind (`binary.py`, `unary.py`,
`linear_algebra.py`, ...) and users import some of them by that path
(`from tvm.relax.op.linear_algebra import einsum`). Here each such submodule re-exports the
named builders from `relax.op` (which takes them from the op registry); a name not registered
yet is left out, so an operator added to the registry appears in its submodule by itself.
"""

from __future__ import annotations

import sys
from typing import Any

GROUPS: dict[str, tuple[str, ...]] = {
    "base": ("assert_op", "call_builtin_with_ctx", "call_dps_packed", "call_inplace_packed",
             "call_py_func", "call_pure_packed", "call_tir", "call_tir_inplace",
             "call_tir_with_grad", "hint_on_device", "invoke_closure", "invoke_pure_closure",
             "make_closure", "null_value", "print", "register_gradient", "shape_of",
             "shape_to_tensor", "size", "tensor_to_shape", "to_vdevice"),
    "binary": ("add", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "equal",
               "floor_divide", "floor_mod", "greater", "greater_equal", "left_shift", "less",
               "less_equal", "log_add_exp", "logical_and", "logical_or", "logical_xor",
               "maximum", "minimum", "mod", "multiply", "not_equal", "power", "right_shift",
               "subtract"),
    "create": ("arange", "eye", "eye_like", "full", "full_like", "hamming_window", "ones",
               "ones_like", "tril", "triu", "zeros", "zeros_like"),
    "datatype": ("astype", "wrap_param"),
    "index": ("dynamic_strided_slice", "strided_slice", "take"),
    "linear_algebra": ("einsum", "linear", "matmul", "outer", "permute_dims"),
    "manipulate": ("broadcast_to", "collapse_sum_like", "collapse_sum_to", "concat",
                   "expand_dims", "flatten", "flip", "gather_elements", "gather_nd",
                   "index_put", "index_tensor", "layout_transform", "meshgrid", "one_hot",
                   "permute_dims", "repeat", "reshape", "reverse_sequence", "scatter_elements",
                   "scatter_nd", "slice_scatter", "split", "squeeze", "stack", "tile"),
    "mask": ("masked_fill",),
    "qdq": ("dequantize", "quantize"),
    "sampling": ("multinomial_from_uniform",),
    "search": ("argmax", "argmin", "bucketize", "where"),
    "set": ("nonzero", "unique"),
    "sorting": ("argsort", "sort", "topk"),
    "statistical": ("cumprod", "cumsum", "max", "mean", "median", "min", "prod", "std", "sum",
                    "variance"),
    "ternary": ("ewise_fma",),
    "unary": ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil",
              "clip", "cos", "cosh", "erf", "exp", "floor", "isfinite", "isinf", "isnan", "log",
              "logical_not", "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
              "sqrt", "square", "tan", "tanh", "trunc"),
    "vision": ("all_class_non_max_suppression", "get_valid_counts", "multibox_transform_loc",
               "non_max_suppression", "roi_align", "roi_pool"),
}


def members(module_name: str) -> dict[str, Any]:
    """The builders `relax.op.<group>` holds, `<group>` being the last part of `module_name`."""
    top = sys.modules[module_name.rsplit(".", 1)[0]]
    group = GROUPS[module_name.rsplit(".", 1)[1]]
    return {name: getattr(top, name) for name in group if hasattr(top, name)}
