"""Computes of the creators and masks: arange, full_like, eye, tril / triu."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .schedule_mode import scheduled

B = tx.BinaryOp


def _as(v: Any, dtype: str) -> tx.PrimExpr:
    v = tx.const(v, dtype) if not isinstance(v, tx.PrimExpr) else v
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def arange(start: Any, step: Any, n: Any, dtype: str) -> te.Tensor:
    if not scheduled() and dtype == "int64":  # TVM's form: i * step + start
        return te.compute((n,), lambda i: _affine(i, _as(step, dtype), _as(start, dtype)),
                          name="T_arange")
    return te.compute((n,), lambda i: _as(start, dtype) + _as(i, dtype) * _as(step, dtype),
                      name="T_arange")


def _affine(i: tx.PrimExpr, step: tx.PrimExpr, start: tx.PrimExpr) -> tx.PrimExpr:
    scaled = i if isinstance(step, tx.IntImm) and step.value == 1 else i * step
    return scaled if isinstance(start, tx.IntImm) and start.value == 0 else scaled + start


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
        if scheduled():
            diff = i[-1] - i[-2]
            keep = tx.binop(B.GE if upper else B.LE, diff, _as(k, "int64"))
        else:
            keep = _trilu_keep(i[-2], i[-1], k, upper)
        return tx.Select(keep, x[i], tx.const(0, x.dtype))
    return te.compute(x.shape, body, name="trilu")


def _trilu_keep(row: tx.PrimExpr, col: tx.PrimExpr, k: Any, upper: bool) -> tx.PrimExpr:
    """TVM's form of `row + k <= col` (triu) or `col <= row + k` (tril): a constant k moves to
    the side where it is positive, and a bound of one becomes a strict comparison."""
    lo, hi = (row, col) if upper else (col, row)
    k = k.value if isinstance(k, tx.IntImm) else k
    if not isinstance(k, int):
        return tx.binop(B.LE, row + _as(k, "int64"), col) if upper else \
            tx.binop(B.LE, col, row + _as(k, "int64"))
    shift = k if upper else -k  # keep lo + shift <= hi
    if shift == 1:
        return tx.binop(B.LT, lo, hi)
    if shift > 0:
        return tx.binop(B.LE, lo + tx.const(shift, "int64"), hi)
    if shift < 0:
        return tx.binop(B.LE, lo, hi + tx.const(-shift, "int64"))
    return tx.binop(B.LE, lo, hi)


def shape_to_tensor(values: tuple[Any, ...]) -> te.Tensor:
    """A shape's values as a 1-d int64 tensor: a chain of `i == k` selections (TVM's form);
    symbolic values are the kernel's scalar parameters."""
    def body(i: tx.PrimExpr) -> tx.PrimExpr:
        out: tx.PrimExpr = tx.const(0, "int64")
        for k in range(len(values) - 1, -1, -1):
            out = te.if_then_else(tx.binop(B.EQ, i, tx.const(k, "int64")),
                                  _as(values[k], "int64"), out)
        return out
    return te.compute((tx.const(len(values), "int64"),), body, name="shape_to_tensor")
