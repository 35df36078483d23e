"""More elementwise operators: inverse/hyperbolic trig, trunc/sign, isnan/isinf/isfinite,
`mod`, `atan2`, `log_add_exp`, `logical_xor`, `clip`, and the parametric activations of `R.nn`
(relu6, leakyrelu, softplus, selu, prelu)."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from .base import (
    BROADCAST, ELEMWISE, as_expr, as_int, call, fmt, norm_axis, op_error, register, same_dim,
    tensor_arg,
)
from .elementwise import _binary_maker, _infer_binary, _unary_maker

FLOAT_UNARY = ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")
ANY_UNARY = ("trunc", "sign")
CLASSIFY = ("isnan", "isinf", "isfinite")
EXTRA_BINARY = ("mod", "atan2", "log_add_exp")


def _infer_float_unary(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "the input")
    if x.dtype and not x.dtype.startswith(("float", "bfloat")):
        raise op_error(name, f"needs a float tensor, got {x.dtype}")
    return x


def _infer_same(c: rx.Call) -> si.StructInfo:
    return tensor_arg(c.op.name, c, 0, "the input")  # type: ignore[attr-defined]


def _infer_classify(c: rx.Call) -> si.StructInfo:
    x = _infer_float_unary(c)
    assert isinstance(x, si.TensorStructInfo)
    return si.TensorStructInfo(x.shape, "bool", x.ndim)


def _infer_clip(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.clip", c, 0, "the input")
    for i, what in ((1, "min"), (2, "max")):
        if not isinstance(c.args[i].struct_info, si.PrimStructInfo):
            raise op_error("relax.clip", f"{what} must be a scalar (a number or R.prim_value)")
    return x


def clip(x: Any, min: Any, max: Any) -> rx.Call:  # noqa: A002 (TVM's names)
    """`x` clamped to [min, max]."""
    return call("relax.clip", (x, _prim(min), _prim(max)))


def _prim(v: Any) -> rx.Expr:
    if isinstance(v, rx.Expr):
        return v
    return as_expr(float(v) if isinstance(v, float) else v)


def leakyrelu(data: Any, alpha: float = 0.01) -> rx.Call:
    return call("relax.nn.leakyrelu", (data,), alpha=float(alpha))


def softplus(data: Any, beta: float = 1.0, threshold: float = 20.0) -> rx.Call:
    return call("relax.nn.softplus", (data,), beta=float(beta), threshold=float(threshold))


def _infer_prelu(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.nn.prelu", c, 0, "data")
    a = tensor_arg("relax.nn.prelu", c, 1, "alpha")
    if x.shape is not None and a.shape is not None:
        axis = norm_axis("relax.nn.prelu", c.attr("axis"), len(x.shape))
        one = len(a.shape) == 1 and as_int(a.shape[0]) == 1  # TVM broadcasts it
        if len(a.shape) != 1 or (same_dim(a.shape[0], x.shape[axis]) is False and not one):
            raise op_error("relax.nn.prelu", f"alpha has shape {fmt(a.shape)}, expected "
                                             f"{fmt((x.shape[axis],))} (data axis {axis})")
    return x


def prelu(data: Any, alpha: Any, axis: int = 1) -> rx.Call:
    return call("relax.nn.prelu", (data, alpha), axis=axis)


for _n in FLOAT_UNARY:
    register(f"relax.{_n}", _infer_float_unary, _unary_maker(f"relax.{_n}"), ELEMWISE)
for _n in ANY_UNARY:
    register(f"relax.{_n}", _infer_same, _unary_maker(f"relax.{_n}"), ELEMWISE)
for _n in CLASSIFY:
    register(f"relax.{_n}", _infer_classify, _unary_maker(f"relax.{_n}"), ELEMWISE)
for _n in EXTRA_BINARY:
    register(f"relax.{_n}", _infer_binary(False), _binary_maker(f"relax.{_n}"), BROADCAST)
register("relax.logical_xor", _infer_binary(True), _binary_maker("relax.logical_xor"), BROADCAST)
register("relax.clip", _infer_clip, clip, ELEMWISE)
register("relax.nn.relu6", _infer_same, _unary_maker("relax.nn.relu6"), ELEMWISE)
register("relax.nn.selu", _infer_float_unary, _unary_maker("relax.nn.selu"), ELEMWISE)
register("relax.nn.leakyrelu", _infer_same, leakyrelu, ELEMWISE)
register("relax.nn.softplus", _infer_float_unary, softplus, ELEMWISE)
register("relax.nn.prelu", _infer_prelu, prelu, BROADCAST)
