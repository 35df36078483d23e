"""TVM's take_backward: one opaque block that zero-fills the gradient, then adds each output
gradient into the element its index took (TVM's IRBuilder kernel, flat indices).

It runs in O(size of x + size of the output gradient), not once per (element, index) pair
as a gather would.
"""

from __future__ import annotations

from .. import te
from ..tir import expr as tx
from ..tir.stmt import Buffer, BufferStore, For, ForKind, Stmt
from .flat_index import B, add, div_mod, flat_at, i64, mul, product, seq_block


def _zero(dtype: str) -> tx.PrimExpr:
    return tx.FloatImm(dtype, 0.0) if dtype.startswith(("float", "bfloat")) else \
        tx.const(0, dtype)


def _kernel(grad: Buffer, x: Buffer, idx: Buffer, out: Buffer, axis: int | None) -> Stmt:
    i = tx.Var("i", "int64")
    fill = For(i, tx.const(0, "int64"), product(x.shape), ForKind.SERIAL,
               BufferStore(out, _zero(x.dtype), flat_at(out, i)))
    n_idx = idx.shape[0]
    serial = tx.Var("serial", "int64")
    taken = tx.BufferLoad(idx, (serial,))

    def add_into(out_flat: tx.PrimExpr, grad_flat: tx.PrimExpr) -> Stmt:
        at = flat_at(out, out_flat)
        return BufferStore(out, tx.BufferLoad(out, at) + tx.BufferLoad(
            grad, flat_at(grad, grad_flat)), at)
    if axis is None:
        acc: Stmt = For(serial, tx.const(0, "int64"), n_idx, ForKind.SERIAL,
                        add_into(i64(taken), serial))
    else:
        pre, nxt = product(grad.shape[:axis]), product(grad.shape[axis + 1:])
        fused = tx.Var("parallel", "int64")
        outer, inner = div_mod(B.FLOORDIV, fused, nxt), div_mod(B.FLOORMOD, fused, nxt)
        out_flat = add(add(mul(mul(outer, nxt), x.shape[axis]), mul(taken, nxt)), inner)
        grad_flat = add(add(mul(mul(outer, nxt), n_idx), mul(serial, nxt)), inner)
        acc = For(fused, tx.const(0, "int64"), mul(pre, nxt), ForKind.SERIAL,
                  For(serial, tx.const(0, "int64"), n_idx, ForKind.SERIAL,
                      add_into(out_flat, grad_flat)))
    return seq_block("take_backward", [fill, acc])


def take_backward(g: te.Tensor, x: te.Tensor, indices: te.Tensor, axis: int | None
                  ) -> te.Tensor:
    """d take(x, indices, axis) / d x for a 1-d `indices`, as TVM's legalization computes it."""
    axis = None if axis is None else axis % x.ndim

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _kernel(ins[0], ins[1], ins[2], outs[0], axis)
    return te.extern(x.shape, [g, x, indices], build, name="take_backward", dtype=x.dtype,
                     attrs={"tvmlite.bare_body": True})
