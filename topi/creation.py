"""Computes of the creators and masks: arange, full_like, eye, tril / triu."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx

B = tx.BinaryOp


def _as(v: Any, dtype: str) -> tx.PrimExpr:
    v = tx.const(v, dtype) if not isinstance(v, tx.PrimExpr) else v
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def arange(start: Any, step: Any, n: Any, dtype: str) -> te.Tensor:
    return te.compute((n,), lambda i: _as(start, dtype) + _as(i, dtype) * _as(step, dtype),
                      name="T_arange")


def full_like(x: te.Tensor, value: Any, dtype: str) -> te.Tensor:
    if isinstance(value, te.Tensor):
        return te.compute(x.shape, lambda *i: _as(value[()], dtype), name="T_full_like")
    return te.compute(x.shape, lambda *i: tx.const(value, dtype), name="T_full_like")


def eye(n: Any, m: Any, k: Any, dtype: str) -> te.Tensor:
    def body(i: tx.PrimExpr, j: tx.PrimExpr) -> tx.PrimExpr:
        on = tx.binop(B.EQ, j - i, _as(k, "int64"))
        return tx.Select(on, tx.const(1, dtype), tx.const(0, dtype))
    return te.compute((n, m), body, name="T_eye")


def trilu(x: te.Tensor, k: Any, upper: bool) -> te.Tensor:
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        diff = i[-1] - i[-2]
        keep = tx.binop(B.GE if upper else B.LE, diff, _as(k, "int64"))
        return tx.Select(keep, x[i], tx.const(0, x.dtype))
    return te.compute(x.shape, body, name="T_trilu")
