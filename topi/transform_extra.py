"""TVM topi's last transform and quantization computes: `dyn_tile` (tile to a given shape),
`sparse_reshape` (TensorFlow's SparseReshape of COO indices) and
`fixed_point_multiply_per_axis` (per-channel requantization multipliers)."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .api_ext import get_const_tuple

B = tx.BinaryOp


def dyn_tile(a: te.Tensor, new_shape: Any, rdim: int) -> te.Tensor:
    """`a` repeated to fill `new_shape`: its axes line up with the last ones of the output,
    each output index taken modulo the input's extent there."""
    shape = tuple(new_shape)
    lead = len(shape) - a.ndim
    if lead < 0:
        raise ValueError(f"topi.dyn_tile: new shape {shape} has fewer axes than the input")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        return a[tuple(tx.binop(B.FLOORMOD, i[lead + d], a.shape[d]) for d in range(a.ndim))]
    return te.compute(shape, body, name="T_tile")


def fixed_point_multiply_per_axis(x: te.Tensor, y: te.Tensor, lshift: te.Tensor,
                                  rshift: te.Tensor, is_lshift_required: int,
                                  is_rshift_required: int, axes: Any) -> te.Tensor:
    """round((x << lshift) * y / 2**(31 + rshift)), half up, in int64, with y, lshift and
    rshift indexed by the output's `axes` (the shift left only when `is_lshift_required`;
    the right shift always applies, as in TVM)."""
    axes = [int(a) for a in get_const_tuple(axes)]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        p = tuple(i[a] for a in axes)
        v = tx.Cast("int64", x[i])
        if is_lshift_required:
            v = v << tx.Cast("int64", lshift[p])
        total = tx.const(31, "int64") + tx.Cast("int64", rshift[p])
        one = tx.const(1, "int64")
        wide = v * tx.Cast("int64", y[p]) + (one << (total - one))
        return tx.Cast(x.dtype, tx.binop(B.FLOORDIV, wide, one << total))
    return te.compute(x.shape, body, name="T_fixed_point_multiply_per_axis")


def sparse_reshape(sparse_indices: te.Tensor, prev_shape: te.Tensor, new_shape: te.Tensor,
                   new_sparse_indices_shape: Any, new_shape_shape: Any) -> list[te.Tensor]:
    """[the indices (n, new_rank) of the same elements in the new shape, the new shape with
    its -1 resolved]: each index row flattened with the old strides, unflattened with the
    new ones."""
    old_rank = int(get_const_tuple(prev_shape.shape)[0])
    new_rank = int(get_const_tuple(new_shape.shape)[0])
    dt = new_shape.dtype
    total = _product([prev_shape[(tx.const(d, "int64"),)] for d in range(old_rank)])
    known = _product([tx.Select(tx.binop(B.EQ, new_shape[(tx.const(d, "int64"),)],
                                         tx.const(-1, dt)), tx.const(1, dt),
                                new_shape[(tx.const(d, "int64"),)]) for d in range(new_rank)])
    resolved = te.compute((new_rank,), lambda d: tx.Select(
        tx.binop(B.EQ, new_shape[(d,)], tx.const(-1, dt)), tx.binop(B.FLOORDIV, total, known),
        new_shape[(d,)]), name="T_sparse_reshape_shape")

    def flat(row: tx.PrimExpr) -> tx.PrimExpr:
        out = tx.const(0, dt)
        for d in range(old_rank):
            out = out * prev_shape[(tx.const(d, "int64"),)] + tx.Cast(
                dt, sparse_indices[(row, tx.const(d, "int64"))])
        return out

    def new_index(row: tx.PrimExpr, col: tx.PrimExpr) -> tx.PrimExpr:
        stride = tx.const(1, dt)
        for d in range(new_rank - 1, -1, -1):
            stride = tx.Select(tx.binop(B.GT, tx.const(d, col.dtype), col),
                               stride * resolved[(tx.const(d, "int64"),)], stride)
        value = tx.binop(B.FLOORMOD, tx.binop(B.FLOORDIV, flat(row), stride),
                         resolved[(col,)])
        return tx.Cast(sparse_indices.dtype, value)
    shape = tuple(get_const_tuple(new_sparse_indices_shape))
    indices = te.compute(shape, new_index, name="T_sparse_reshape_indices")
    return [indices, resolved]


def _product(values: list[tx.PrimExpr]) -> tx.PrimExpr:
    out = values[0]
    for v in values[1:]:
        out = out * v
    return out
