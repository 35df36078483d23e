"""The `NT_matmul` kernel TVM's FuseTransposeMatmul emits: `out[..., i, j] = sum_k x[..., i, k]
* w[..., j, k]`, the weight read where it lies (batch dims broadcast as matmul's do)."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx


def _is_one(d: Any) -> bool:
    return isinstance(d, tx.IntImm) and d.value == 1


def _batch_indices(idx: tuple[Any, ...], a_batch: list[Any], b_batch: list[Any],
                   n_out: int) -> tuple[list[Any], list[Any]]:
    """Each operand's batch indices for output index `idx` (right-aligned broadcasting)."""
    a_idx: list[Any] = []
    b_idx: list[Any] = []
    for dims, out in ((a_batch, a_idx), (b_batch, b_idx)):
        offset = n_out - len(dims)
        for i, d in enumerate(dims):
            out.append(tx.IntImm("int64", 0) if _is_one(d) else idx[offset + i])
    return a_idx, b_idx


def nt_matmul(a: te.Tensor, b: te.Tensor, out_shape: Any, out_dtype: str) -> te.Tensor:
    """`a @ b^T` over the last two axes of `b` (a 1-d operand is a single row or column)."""
    a_shape, b_shape = list(a.shape), list(b.shape)
    a_vec, b_vec = len(a_shape) == 1, len(b_shape) == 1
    a_batch = [] if a_vec else a_shape[:-2]
    b_batch = [] if b_vec else b_shape[:-2]
    n_batch = len(out_shape) - (0 if a_vec else 1) - (0 if b_vec else 1)

    def compute(*idx: Any) -> Any:
        k = te.reduce_axis((0, a_shape[-1]), name="k")
        a_idx, b_idx = _batch_indices(idx, a_batch, b_batch, n_batch)
        if not a_vec:
            a_idx.append(idx[n_batch])
        if not b_vec:
            b_idx.append(idx[-1])
        lhs, rhs = a(*a_idx, k), b(*b_idx, k)
        if out_dtype and out_dtype != a.dtype:
            lhs = lhs.astype(out_dtype)
        if out_dtype and out_dtype != b.dtype:
            rhs = rhs.astype(out_dtype)
        return te.sum(lhs * rhs, axis=k)

    return te.compute(out_shape, compute, name="NT_matmul")
