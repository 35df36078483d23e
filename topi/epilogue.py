"""Elementwise epilogues fused into a reduction's loop nest (te.with_epilogue): a conv's bias,
activation and residual add applied to each output tile right after its reduction.

An epilogue is a tuple of steps over the reduced value `v`, each one of
`("add" | "multiply", k)` (v + extras[k], v * extras[k]), `("subtract", k, v_first)`
(v - extras[k], or extras[k] - v), `("relu",)`, `("clip", lo, hi)`, `("maximum", c)` and
`("minimum", c)`; `extras` are tensors broadcasting to the output (numpy rules: aligned on
the right, a dim of 1 repeats).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import te
from ..tir import expr as tx

B = tx.BinaryOp
Step = tuple[Any, ...]
BINARY = {"add": B.ADD, "multiply": B.MUL, "subtract": B.SUB}


def epilogue_fn(steps: tuple[Step, ...], extras: list[te.Tensor]
                ) -> Callable[..., tx.PrimExpr]:
    """fn(v, *axes): the steps applied to the value `v` of the output element at `axes`."""
    def fn(v: tx.PrimExpr, *axes: tx.PrimExpr) -> tx.PrimExpr:
        for step in steps:
            kind = step[0]
            if kind in BINARY:
                other = _broadcast_read(extras[step[1]], axes, v.dtype)
                a, b = (v, other) if kind != "subtract" or step[2] else (other, v)
                v = tx.binop(BINARY[kind], a, b)
            elif kind == "relu":
                v = tx.binop(B.MAX, v, tx.const(0, v.dtype))
            elif kind == "clip":
                v = tx.binop(B.MAX, tx.binop(B.MIN, v, tx.const(step[2], v.dtype)),
                             tx.const(step[1], v.dtype))
            elif kind in ("maximum", "minimum"):
                op = B.MAX if kind == "maximum" else B.MIN
                v = tx.binop(op, v, tx.const(step[1], v.dtype))
            else:
                raise ValueError(f"unknown epilogue step {step!r}")
        return v
    return fn


def _broadcast_read(t: te.Tensor, axes: tuple[tx.PrimExpr, ...], dtype: str) -> tx.PrimExpr:
    lead = len(axes) - t.ndim
    idx = tuple(tx.const(0, "int64") if _is_one(d) else axes[lead + k]
                for k, d in enumerate(t.shape))
    v = t[idx]
    return v if v.dtype == dtype else tx.Cast(dtype, v)


def _is_one(d: Any) -> bool:
    return isinstance(d, tx.IntImm) and d.value == 1


def apply_epilogue(out: te.Tensor, fn: Callable[..., tx.PrimExpr]) -> te.Tensor:
    """`out` with `fn` fused into its loop nest when it can be, else as a compute after it."""
    if te.with_epilogue(out, fn):
        return out
    return te.compute(out.shape, lambda *i: fn(out[i], *i), name="T_epilogue")


def conv2d_nchw_fused(data: te.Tensor, weight: te.Tensor, *extras: te.Tensor, strides: Any,
                      padding: Any, dilation: Any, groups: int, out_dtype: str | None,
                      steps: tuple[Step, ...]) -> te.Tensor:
    """conv2d_nchw followed by the epilogue `steps` (over `extras`), in one loop nest."""
    from .nn import conv2d_nchw

    return conv2d_nchw(data, weight, strides, padding, dilation, groups, out_dtype,
                       epilogue=epilogue_fn(steps, list(extras)))
