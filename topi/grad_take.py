"""TVM's take_backward: one opaque block that zero-fills the gradient, then adds each output
gradient into the element its index took, with flat indices (TVM's IRBuilder kernel).

TVM's kernel runs in O(size of x + size of the output gradient), not once per (element, index)
pair as a gather would. Its arithmetic is TVM's operator arithmetic, which folds `* 1`, `+ 0`,
`// 1` and constants (TryConstFold); the helpers below do the same so the kernel prints alike.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.stmt import (
    AttrStmt, Block, BlockRealize, Buffer, BufferStore, For, ForKind, Stmt, seq,
)

B = tx.BinaryOp


def _int(e: Any) -> int | None:
    return e.value if isinstance(e, tx.IntImm) else None


def _i64(e: Any) -> tx.PrimExpr:
    e = tx.const(e, "int64") if isinstance(e, int) else e
    return e if e.dtype == "int64" else tx.Cast("int64", e)


def _mul(a: Any, b: Any) -> tx.PrimExpr:
    a, b = _i64(a), _i64(b)
    ca, cb = _int(a), _int(b)
    if ca is not None and cb is not None:
        return tx.const(ca * cb, "int64")
    if ca == 1 or cb == 0:
        return b
    if cb == 1 or ca == 0:
        return a
    return tx.binop(B.MUL, a, b)


def _add(a: Any, b: Any) -> tx.PrimExpr:
    a, b = _i64(a), _i64(b)
    ca, cb = _int(a), _int(b)
    if ca is not None and cb is not None:
        return tx.const(ca + cb, "int64")
    if ca == 0:
        return b
    return a if cb == 0 else tx.binop(B.ADD, a, b)


def _div_mod(op: B, a: Any, b: Any) -> tx.PrimExpr:
    a, b = _i64(a), _i64(b)
    ca, cb = _int(a), _int(b)
    if ca is not None and cb is not None:
        return tx.const(ca // cb if op is B.FLOORDIV else ca % cb, "int64")
    if cb == 1:
        return a if op is B.FLOORDIV else tx.const(0, "int64")
    return tx.binop(op, a, b)


def _flat_at(buf: Buffer, flat: tx.PrimExpr) -> tuple[tx.PrimExpr, ...]:
    """The multi-dimensional index of a flat one (TVM's buffer_proxy): `f % d` for the last
    axis, `f // d2 % d1` for the middle ones, no modulo for the first."""
    out, rest = [], flat
    for k, d in enumerate(reversed(buf.shape)):
        last = k == len(buf.shape) - 1
        out.append(rest if last else _div_mod(B.FLOORMOD, rest, d))
        rest = _div_mod(B.FLOORDIV, rest, d)
    return tuple(reversed(out))


def _product(dims: Any) -> tx.PrimExpr:
    return reduce(_mul, dims, tx.const(1, "int64"))


def _kernel(grad: Buffer, x: Buffer, idx: Buffer, out: Buffer, axis: int | None) -> Stmt:
    zero = tx.const(0, x.dtype) if x.dtype.startswith(("int", "uint")) else \
        tx.FloatImm(x.dtype, 0.0)
    i = tx.Var("i", "int64")
    fill = For(i, tx.const(0, "int64"), _product(x.shape), ForKind.SERIAL,
               BufferStore(out, zero, _flat_at(out, i)))
    n_idx = idx.shape[0]
    serial = tx.Var("serial", "int64")
    taken = tx.BufferLoad(idx, (serial,))

    def add_into(out_flat: tx.PrimExpr, grad_flat: tx.PrimExpr) -> Stmt:
        at = _flat_at(out, out_flat)
        return BufferStore(out, tx.BufferLoad(out, at) + tx.BufferLoad(
            grad, _flat_at(grad, grad_flat)), at)
    if axis is None:
        acc: Stmt = For(serial, tx.const(0, "int64"), n_idx, ForKind.SERIAL,
                        add_into(_i64(taken), serial))
    else:
        pre, nxt = _product(grad.shape[:axis]), _product(grad.shape[axis + 1:])
        fused = tx.Var("parallel", "int64")
        outer, inner = _div_mod(B.FLOORDIV, fused, nxt), _div_mod(B.FLOORMOD, fused, nxt)
        out_flat = _add(_add(_mul(_mul(outer, nxt), x.shape[axis]), _mul(taken, nxt)), inner)
        grad_flat = _add(_add(_mul(_mul(outer, nxt), n_idx), _mul(serial, nxt)), inner)
        acc = For(fused, tx.const(0, "int64"), _mul(pre, nxt), ForKind.SERIAL,
                  For(serial, tx.const(0, "int64"), n_idx, ForKind.SERIAL,
                      add_into(out_flat, grad_flat)))
    body = AttrStmt(tx.const(0, "int32"), "pragma_scope", tx.StringImm("seq"), seq([fill, acc]))
    return BlockRealize((), tx.IntImm("bool", 1), Block("take_backward", (), body))


def take_backward(g: te.Tensor, x: te.Tensor, indices: te.Tensor, axis: int | None
                  ) -> te.Tensor:
    """d take(x, indices, axis) / d x for a 1-d `indices`, as TVM's legalization computes it."""
    axis = None if axis is None else axis % x.ndim

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _kernel(ins[0], ins[1], ins[2], outs[0], axis)
    return te.extern(x.shape, [g, x, indices], build, name="take_backward", dtype=x.dtype,
                     attrs={"tvmlite.bare_body": True})
