"""More elementwise computes: inverse and hyperbolic trig, sign/trunc, float classification,
`clip`, truncating `mod`, `atan2`, `log_add_exp`, and the parametric activations."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .transform import _call, binary, unary

B = tx.BinaryOp


def _c(value: Any, like: tx.PrimExpr) -> tx.PrimExpr:
    return tx.const(value, like.dtype)


tan, atan, sinh, cosh = (unary(n, _call(n)) for n in ("tan", "atan", "sinh", "cosh"))


def _float_only(name: str) -> Any:
    """TVM's topi refuses integer input to these (their results are not integers)."""
    op = unary(name, _call(name))

    def checked(x: te.Tensor) -> te.Tensor:
        if not x.dtype.startswith(("float", "bfloat")):
            raise TypeError(f"topi.{name} only supports floating-point inputs, but got {x.dtype}")
        return op(x)
    checked.__name__ = name
    return checked


asin, acos, asinh, acosh, atanh = (_float_only(n) for n in (
    "asin", "acos", "asinh", "acosh", "atanh"))


def _trunc(x: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Call(x.dtype, "tir.trunc", (x,)) if x.dtype.startswith("float") else x


def _sign(x: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Select(tx.binop(B.GT, x, _c(0, x)), _c(1, x),
                     tx.Select(tx.binop(B.LT, x, _c(0, x)), _c(-1, x), _c(0, x)))


trunc = unary("trunc", _trunc)
sign = unary("sign", _sign)
isnan = unary("isnan", lambda x: tx.binop(B.NE, x, x))
# NOTE: x - x is 0 for every finite x and NaN for inf and NaN
isfinite = unary("isfinite", lambda x: tx.binop(B.EQ, x - x, _c(0, x)))
isinf = unary("isinf", lambda x: tx.binop(B.AND, tx.binop(B.EQ, x, x),
                                          tx.binop(B.NE, x - x, _c(0, x))))


def _mod(a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
    if a.dtype.startswith("float"):
        return tx.Call(a.dtype, "tir.fmod", (a, b))
    return tx.binop(B.MOD, a, b)


def _log_add_exp(a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
    big = tx.binop(B.MAX, a, b)
    small = tx.binop(B.MIN, a, b)
    diff = tx.Call(a.dtype, "tir.exp", (small - big,))
    return big + tx.Call(a.dtype, "tir.log1p", (diff,))


mod = binary("mod", _mod)
atan2 = binary("atan2", lambda a, b: tx.Call(a.dtype, "tir.atan2", (a, b)))
log_add_exp = binary("log_add_exp", _log_add_exp)
logical_xor = binary("logical_xor", lambda a, b: tx.binop(B.NE, a, b))


def clip(x: te.Tensor, lo: Any, hi: Any) -> te.Tensor:
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[i]
        return tx.binop(B.MAX, tx.binop(B.MIN, v, _bound(hi, v)), _bound(lo, v))
    return te.compute(x.shape, body, name="T_clip")


def _bound(value: Any, like: tx.PrimExpr) -> tx.PrimExpr:
    if isinstance(value, (tx.IntImm, tx.FloatImm)):
        return tx.const(value.value, like.dtype)
    if isinstance(value, tx.PrimExpr):
        return value if value.dtype == like.dtype else tx.Cast(like.dtype, value)
    return _c(value, like)


def leaky_relu(x: te.Tensor, alpha: float) -> te.Tensor:
    return te.compute(x.shape, lambda *i: tx.Select(tx.binop(B.GT, x[i], _c(0, x[i])), x[i],
                                                    x[i] * _c(alpha, x[i])), name="T_leaky_relu")


def relu6(x: te.Tensor) -> te.Tensor:
    return clip(x, 0.0, 6.0)


def softplus(x: te.Tensor, beta: float, threshold: float) -> te.Tensor:
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        bx = x[i] * _c(beta, x[i])
        soft = tx.Call(x.dtype, "tir.log1p", (tx.Call(x.dtype, "tir.exp", (bx,)),))
        return tx.Select(tx.binop(B.GT, bx, _c(threshold, bx)), x[i], soft / _c(beta, bx))
    return te.compute(x.shape, body, name="T_softplus")


def selu(x: te.Tensor) -> te.Tensor:
    alpha, scale = 1.6732632423543772, 1.0507009873554805

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[i]
        neg = _c(alpha, v) * (tx.Call(v.dtype, "tir.exp", (v,)) - _c(1, v))
        return _c(scale, v) * tx.Select(tx.binop(B.GT, v, _c(0, v)), v, neg)
    return te.compute(x.shape, body, name="T_selu")


def prelu(x: te.Tensor, alpha: te.Tensor, axis: int) -> te.Tensor:
    axis %= x.ndim

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        v = x[i]
        return tx.Select(tx.binop(B.GT, v, _c(0, v)), v, v * alpha[(i[axis],)])
    return te.compute(x.shape, body, name="T_prelu")
