"""`topi.scanop`: a cumulative scan with any binary op, inclusive or exclusive, along one axis
or over the flattened input (cumsum and cumprod are its `+` and `*` cases).

The op need not be associative or have `identity_value` as a true identity (TVM accepts
`lambda x, y: x * y + 1`), so the scan is a sequential loop, as TVM runs it, not a masked
reduction: out[0] = data[0] and out[i] = binop(out[i - 1], data[i]); exclusive, out[0] is the
identity and out[i] = binop(out[i - 1], data[i - 1])."""

from __future__ import annotations

from typing import Any, Callable

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from ..tir.stmt import BufferStore, For, ForKind, IfThenElse
from .transform import _prod, reshape

B = tx.BinaryOp


def scanop(data: te.Tensor, binop: Callable[[Any, Any], Any], identity_value: Any,
           op_name: str, axis: int | None = None, dtype: str | None = None,
           exclusive: bool | None = None) -> te.Tensor:
    dtype = dtype or data.dtype
    if axis is None:
        data, axis = reshape(data, (simplify(_prod(data.shape)),)), 0
    axis %= data.ndim
    identity = identity_value if isinstance(identity_value, tx.PrimExpr) else tx.const(
        identity_value, dtype)

    def as_dtype(v: tx.PrimExpr) -> tx.PrimExpr:
        return v if v.dtype == dtype else tx.Cast(dtype, v)

    def body(ins: list[Any], outs: list[Any]) -> Any:
        src, out = ins[0], outs[0]
        idx = [tx.Var(f"i{d}", "int64") for d in range(data.ndim)]
        i = idx[axis]

        def at(pos: tx.PrimExpr) -> tuple[tx.PrimExpr, ...]:
            return tuple(pos if d == axis else v for d, v in enumerate(idx))
        prev = tx.BufferLoad(out, at(i - tx.const(1, "int64")))
        if exclusive:
            first = as_dtype(identity)
            step = as_dtype(binop(prev, as_dtype(tx.BufferLoad(src, at(i - tx.const(1, "int64"))))))
        else:
            first = as_dtype(tx.BufferLoad(src, at(i)))
            step = as_dtype(binop(prev, first))
        stmt: Any = IfThenElse(tx.binop(B.EQ, i, tx.const(0, "int64")),
                               BufferStore(out, first, at(i)), BufferStore(out, step, at(i)))
        for d in reversed(range(data.ndim)):  # inside the scanned axis, which runs in order
            if d == axis:
                continue
            stmt = For(idx[d], tx.const(0, "int64"), data.shape[d], ForKind.SERIAL, stmt)
        stmt = For(i, tx.const(0, "int64"), data.shape[axis], ForKind.SERIAL, stmt)
        return stmt
    return te.extern(data.shape, [data], body, name=op_name, dtype=dtype)
