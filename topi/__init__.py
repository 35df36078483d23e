"""`tvm.topi`: operator computes built on `te` (what LegalizeOps and `bb.emit_te` use)."""

from . import generic_ops, nn  # noqa: F401 (generic_ops: `A + 1` on te tensors)
from .transform import (  # noqa: A004 (TVM's names)
    abs, add, argmax, broadcast_to, cast, ceil, concatenate, cos, divide, equal, erf, exp,
    expand_dims, floor, floor_divide, floor_mod, full, greater, greater_equal, identity, less,
    less_equal, log, logical_and, logical_not, logical_or, max, maximum, mean, min, minimum,
    multiply, negative, not_equal, power, prod, reshape, round, rsqrt, sigmoid, sin, sqrt,
    square, strided_slice, subtract, sum, take, tanh, transpose, where,
)
from .nn import matmul

__all__ = [
    "nn", "abs", "add", "argmax", "broadcast_to", "cast", "ceil", "concatenate", "cos",
    "divide", "equal", "erf", "exp", "expand_dims", "floor", "floor_divide", "floor_mod", "full",
    "greater", "greater_equal", "identity", "less", "less_equal", "log", "logical_and",
    "logical_not", "logical_or", "max", "maximum", "mean", "min", "minimum", "multiply",
    "negative", "not_equal", "power", "prod", "reshape", "round", "rsqrt", "sigmoid", "sin",
    "sqrt", "square", "strided_slice", "subtract", "sum", "take", "tanh", "transpose", "where",
    "matmul",
]

# The newer elementwise, creation, indexing and nn computes (TVM's topi names).
from . import nn_ext  # noqa: E402
from .indexing import (  # noqa: E402
    flip, gather_elements, gather_nd, one_hot, repeat, stack, tile,
)
from .scatter_flat import scatter_elements  # noqa: E402 (TVM's flat-index kernel)
from .math_ext import (  # noqa: E402
    acos, acosh, asin, asinh, atan, atan2, atanh, clip, cosh, isfinite, isinf, isnan,
    log_add_exp, logical_xor, sign, sinh, tan, trunc,
)

__all__ += [
    "nn_ext", "flip", "gather_elements", "gather_nd", "one_hot", "repeat", "scatter_elements",
    "stack", "tile", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "clip", "cosh",
    "isfinite", "isinf", "isnan", "log_add_exp", "logical_xor", "sign", "sinh", "tan", "trunc",
]

# TVM's remaining topi names with TVM's signatures (api_ext.py, transform_more.py).
from typing import Callable  # noqa: E402,F401 (TVM's topi re-exports it)

from ..tir.expr import Cast  # noqa: E402,F401
from ..te.math import div, floordiv, floormod  # noqa: E402,F401
from .api_ext import (  # noqa: E402,F401,A004
    InvalidShapeError, all, any, arange, argmin, argsort, collapse_sum, cumprod, cumsum,
    einsum, elemwise_sum, expand_like, eye, fast_erf, fast_exp, fast_tanh, full_like, gather,
    get_const_tuple, hamming_window, log2, log10, meshgrid, mod, reverse_sequence, scatter_nd,
    reinterpret, shape, sort, split, squeeze, tensor_size, topk, trilu,
)
from .transform_more import (  # noqa: E402,F401
    ceil_log2, const_vector, make_idx, matrix_set_diag, searchsorted, sequence_mask,
    sliding_window, strided_set, tensordot, unravel_index, within_index, fixed_point_multiply,
    sparse_to_dense, dft, dynamic_strided_slice,
)
from .scatter_index import index_tensor, slice_scatter  # noqa: E402,F401
from .api_ext import index_put  # noqa: E402,F401
from .bitwise import (  # noqa: E402
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, left_shift, right_shift,
)

__all__ += ["bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "left_shift",
            "right_shift"]
from .layout import layout_transform  # noqa: E402,F401
from .scatter_index import index_tensor as adv_index  # noqa: E402,F401 (numpy indexing)
from ..runtime import DataTypeCode  # noqa: E402,F401 (TVM's topi re-exports it)
from ..te.extern import extern  # noqa: E402,F401 (TVM's topi re-exports te.extern)
from .scan import scanop  # noqa: E402,F401
from .signal import stft  # noqa: E402,F401
from .transform_extra import (  # noqa: E402,F401
    dyn_tile, fixed_point_multiply_per_axis, sparse_reshape,
)
from ..tir.analyzer import Analyzer  # noqa: E402,F401 (TVM's topi re-exports it)
from ..tir.stmt import decl_buffer  # noqa: E402,F401 (TVM's topi re-exports it)
from ..script.ir_builder.base import IRBuilder  # noqa: E402,F401 (TVM's topi re-exports it)
