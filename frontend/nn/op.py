"""Functional operators (`nn.op.matmul(a, b)`): each emits one registered relax operator.

Each takes nn.Tensors (Python numbers where a tensor operand may be a scalar: they become
constants of the tensor's dtype) and a `name`, the binding's name hint (TVM's defaults:
`mul` for multiply, `neg` for negative). Tuple results (split, chunk) come back as tuples of
Tensors.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...ir import expr as rx
from ...ir.op import op_attr
from ...ir.ops.base import const
from .core import Tensor
from .exporter import current
from .extern import extern, tensor_expr_op, tensor_ir_inplace_op, tensor_ir_op

__all__ = [
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "less_equal",
    "greater", "greater_equal", "equal", "not_equal", "where", "matmul",
    "relu", "silu", "gelu", "sigmoid", "tanh", "exp", "log", "floor", "sqrt", "square",
    "negative", "softmax", "sum", "max", "min", "reshape", "permute_dims", "permute", "concat",
    "split", "chunk", "unsqueeze", "squeeze", "broadcast_to", "take", "astype", "layer_norm",
    "rms_norm",
    "conv2d", "zeros", "ones", "extern", "tensor_expr_op", "tensor_ir_op", "tensor_ir_inplace_op",
    "print_", "debug_func",
]


def _x(value: Any) -> Any:
    """A Tensor's relax expression; anything else (numbers, shapes) unchanged."""
    if not isinstance(value, Tensor):
        return value
    if value._expr is None:  # a Parameter outside a trace, or of another module
        exporter = current()
        raise ValueError(f"{value!r} is not a parameter of the exported "
                         f"{type(exporter.module).__name__}; assign it (or its module) to an "
                         "attribute of the model")
    return value._expr


def _op(name: str, *args: Any, **attrs: Any) -> rx.Call:
    """A call of the registered relax operator `relax.<name>`, built by its own maker."""
    return op_attr(f"relax.{name}", "make")(*(_x(a) for a in args), **attrs)


def _emit(expr: rx.Expr, name: str) -> Any:
    return current().wrap(expr, name)


# -- elementwise --------------------------------------------------------------------------------


def add(a: Any, b: Any, name: str = "add") -> Tensor:
    return _emit(_op("add", a, b), name)


def subtract(a: Any, b: Any, name: str = "subtract") -> Tensor:
    return _emit(_op("subtract", a, b), name)


def multiply(a: Any, b: Any, name: str = "mul") -> Tensor:
    return _emit(_op("multiply", a, b), name)


def divide(a: Any, b: Any, name: str = "divide") -> Tensor:
    return _emit(_op("divide", a, b), name)


def maximum(x1: Any, x2: Any, name: str = "maximum") -> Tensor:
    return _emit(_op("maximum", x1, x2), name)


def minimum(x1: Any, x2: Any, name: str = "minimum") -> Tensor:
    return _emit(_op("minimum", x1, x2), name)


def less(a: Any, b: Any, name: str = "less") -> Tensor:
    return _emit(_op("less", a, b), name)


def less_equal(a: Any, b: Any, name: str = "less_equal") -> Tensor:
    return _emit(_op("less_equal", a, b), name)


def greater(a: Any, b: Any, name: str = "greater") -> Tensor:
    return _emit(_op("greater", a, b), name)


def greater_equal(a: Any, b: Any, name: str = "greater_equal") -> Tensor:
    return _emit(_op("greater_equal", a, b), name)


def equal(a: Any, b: Any, name: str = "equal") -> Tensor:
    return _emit(_op("equal", a, b), name)


def not_equal(a: Any, b: Any, name: str = "not_equal") -> Tensor:
    return _emit(_op("not_equal", a, b), name)


def where(condition: Tensor, x1: Any, x2: Any, name: str = "where") -> Tensor:
    return _emit(_op("where", condition, x1, x2), name)


def matmul(a: Tensor, b: Tensor, out_dtype: str | None = None, name: str = "matmul") -> Tensor:
    return _emit(_op("matmul", a, b, out_dtype=out_dtype), name)


def _unary(op_name: str, x: Tensor, name: str) -> Tensor:
    return _emit(_op(op_name, x), name)


def relu(x: Tensor, name: str = "relu") -> Tensor:
    return _unary("nn.relu", x, name)


def silu(x: Tensor, name: str = "silu") -> Tensor:
    return _unary("nn.silu", x, name)


def gelu(x: Tensor, approximate: str | None = None, name: str = "gelu") -> Tensor:
    if approximate not in (None, "none", "tanh"):
        raise ValueError(f"gelu: approximate is None or 'tanh', got {approximate!r}")
    return _unary("nn.gelu_tanh" if approximate == "tanh" else "nn.gelu", x, name)


def sigmoid(x: Tensor, name: str = "sigmoid") -> Tensor:
    return _unary("sigmoid", x, name)


def tanh(x: Tensor, name: str = "tanh") -> Tensor:
    return _unary("tanh", x, name)


def exp(x: Tensor, name: str = "exp") -> Tensor:
    return _unary("exp", x, name)


def log(x: Tensor, name: str = "log") -> Tensor:
    return _unary("log", x, name)


def floor(x: Tensor, name: str = "floor") -> Tensor:
    return _unary("floor", x, name)


def sqrt(x: Tensor, name: str = "sqrt") -> Tensor:
    return _unary("sqrt", x, name)


def square(x: Tensor, name: str = "square") -> Tensor:
    return _unary("square", x, name)


def negative(x: Tensor, name: str = "neg") -> Tensor:
    return _unary("negative", x, name)


def astype(x: Tensor, dtype: str, name: str = "astype") -> Tensor:
    return _emit(_op("astype", x, dtype), name)


# -- reductions and normalization ---------------------------------------------------------------


def softmax(x: Tensor, axis: int = -1, name: str = "softmax") -> Tensor:
    return _emit(_op("nn.softmax", x, axis=axis), name)


def sum(x: Tensor, axis: Any = None, keepdims: bool = False,  # noqa: A001 (TVM's name)
        name: str = "sum") -> Tensor:
    return _emit(_op("sum", x, axis=_axes(axis), keepdims=keepdims), name)


def max(x: Tensor, axis: Any = None, keepdims: bool = False,  # noqa: A001
        name: str = "max") -> Tensor:
    return _emit(_op("max", x, axis=_axes(axis), keepdims=keepdims), name)


def min(x: Tensor, axis: Any = None, keepdims: bool = False,  # noqa: A001
        name: str = "min") -> Tensor:
    return _emit(_op("min", x, axis=_axes(axis), keepdims=keepdims), name)


def _axes(axis: Any) -> Any:
    return [axis] if isinstance(axis, int) else axis  # TVM prints a single axis as [a]


def layer_norm(x: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, name: str = "layer_norm"
               ) -> Tensor:
    """Normalize over the last len(normalized_shape) axes; missing weight/bias are ones/zeros."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if weight is None:  # NOTE: constants, not bindings, as TVM does
        weight = Tensor(_expr=const(np.ones(shape), x.dtype))
    if bias is None:
        bias = Tensor(_expr=const(np.zeros(shape), x.dtype))
    axes = list(range(-len(shape), 0))
    return _emit(_op("nn.layer_norm", x, weight, bias, axes=axes, epsilon=eps), name)


def rms_norm(x: Tensor, weight: Tensor, axes: int | Sequence[int] = -1, epsilon: float = 1e-5,
             name: str = "rms_norm") -> Tensor:
    """`x / sqrt(mean(x ** 2, axes) + epsilon) * weight`."""
    return _emit(_op("nn.rms_norm", x, weight, axes=[axes] if isinstance(axes, int) else
                     list(axes), epsilon=epsilon), name)


# -- shapes and layout --------------------------------------------------------------------------


def reshape(x: Tensor, shape: Sequence[Any], name: str = "reshape") -> Tensor:
    """A 0 in `shape` keeps the input's dim at that position (TVM's nn reshape)."""
    shape = [x.shape[i] if isinstance(d, int) and d == 0 else d for i, d in enumerate(shape)]
    call = _op("reshape", x, tuple(shape))
    if any(isinstance(d, int) and d == -1 for d in shape) and call.struct_info.shape:
        # NOTE: TVM writes the inferred dim in place of -1 (`R.shape([2, 4])`)
        call = _op("reshape", x, call.struct_info.shape)
    return _emit(call, name)


def permute_dims(x: Tensor, axes: Sequence[int] | None = None, name: str | None = None
                 ) -> Tensor:
    if name is None:  # TVM's naming: a linear layer's weight transposes to `matmul_..._weight`
        source = getattr(_x(x), "name_hint", "")
        name = source.replace("linear", "matmul") if "linear" in source else "permute_dims"
    return _emit(_op("permute_dims", x, axes), name)


def permute(x: Tensor, axes: Sequence[int] | None, name: str = "permute") -> Tensor:
    return _emit(_op("permute_dims", x, axes), name)


def concat(x: Sequence[Tensor], dim: int, name: str = "concat") -> Tensor:
    return _emit(_op("concat", [_x(t) for t in x], axis=dim), name)


def split(ary: Tensor, indices_or_sections: int | Sequence[int], axis: int = 0,
          name: str = "split") -> tuple[Tensor, ...]:
    return _emit(_op("split", ary, indices_or_sections, axis=axis), name)


def chunk(x: Tensor, chunks: int, dim: int = 0, name: str = "chunk") -> tuple[Tensor, ...]:
    return _emit(_op("split", x, chunks, axis=dim), name)


def unsqueeze(x: Tensor, dim: int, name: str = "unsqueeze") -> Tensor:
    return _emit(_op("expand_dims", x, [dim]), name)


def squeeze(x: Tensor, axis: int = -1, name: str = "squeeze") -> Tensor:
    return _emit(_op("squeeze", x, [axis]), name)


def broadcast_to(x: Tensor, shape: Sequence[Any], name: str = "broadcast_to") -> Tensor:
    return _emit(_op("broadcast_to", x, tuple(shape)), name)


def take(x: Tensor, indices: Tensor, axis: int | None = None, name: str = "take") -> Tensor:
    return _emit(_op("take", x, indices, axis=axis), name)


# -- convolution ----------------------------------------------------------------------------------


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1, data_layout: str = "NCHW",
           name: str = "conv2d") -> Tensor:
    """`conv2d(x, weight) + bias` (bias of shape (C_out,) broadcast over NCHW), one binding;
    the conv and the bias reshape become `lv` bindings before it, as in TVM."""
    conv = _op("nn.conv2d", x, weight, strides=stride, padding=padding, dilation=dilation,
               groups=groups, data_layout=data_layout)
    if bias is not None:
        channels = weight.shape[0]
        conv = _op("add", conv, _op("reshape", bias, (1, channels, 1, 1)))
    return _emit(conv, name)


# -- creation -----------------------------------------------------------------------------------


def zeros(shape: Sequence[Any], dtype: str = "float32", name: str = "zeros") -> Tensor:
    return _emit(_op("zeros", tuple(shape), dtype), name)


def ones(shape: Sequence[Any], dtype: str = "float32", name: str = "ones") -> Tensor:
    return _emit(_op("ones", tuple(shape), dtype), name)


# -- debugging: impure calls threaded through the `_io` effect (export with debug=True) ------


def print_(tensor: Tensor) -> None:
    """Print `tensor` when the compiled method runs (TVM's `nn.op.print_`)."""
    current().emit_effect("effect.print", [_x(tensor), rx.StringImm("")], "print_")


def debug_func(name: str, *args: Any, _line_info: str | None = None) -> None:
    """Call the global function `name` at run time with the call site (`file:line`) and
    `args` (tensors, ints, floats, strings, tir vars), as TVM's `nn.op.debug_func` does."""
    import inspect

    if _line_info is None:
        caller = inspect.stack()[1]
        _line_info = f"{caller.filename}:{caller.lineno}"
    values = [_debug_arg(a) for a in args]
    current().emit_effect("vm.builtin.invoke_debug_func",
                          [rx.StringImm(name), rx.StringImm(_line_info), *values], "debug_func")


def _debug_arg(value: Any) -> rx.Expr:
    from ...tir import expr as tx

    if isinstance(value, Tensor):
        return value._expr
    if isinstance(value, str):
        return rx.StringImm(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, tx.PrimExpr)):
        raise TypeError(f"nn.op.debug_func: arguments are tensors, ints, floats, strings or "
                        f"tir expressions, got {type(value).__name__}")
    dtype = "float64" if isinstance(value, float) else "int64"
    return rx.PrimValue(value if isinstance(value, tx.PrimExpr) else tx.const(value, dtype))


from .op_ext import *  # noqa: E402,F401,F403 (TVM keeps them all in one nn.op)
from .op_ext import __all__ as _ext_names  # noqa: E402

__all__ += _ext_names
