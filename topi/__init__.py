"""`tvm.topi`: operator computes built on `te` (what LegalizeOps and `bb.emit_te` use)."""

from . import nn
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
