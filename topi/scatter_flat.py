"""TVM's scatter_elements and scatter_nd kernels: one opaque block that copies the data, then
writes (or combines) each update into the element its index names, with flat indices (TVM's
IRBuilder externs `scatter_elements.generic`, `scatter_nd.generic`).

Both run in O(size of data + number of updates). A negative scatter_elements index counts
from the end of the axis. TVM checks no index; the kernels tvmlite builds skip an update whose
index falls outside the data (so a bad index never writes outside the output's memory),
while the plain form, outside the build, stays TVM's exactly.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import te
from ..tir import expr as tx
from ..tir.stmt import Buffer, BufferStore, For, ForKind, IfThenElse, Stmt
from .flat_index import B, add, div_mod, flat_at, mul, product, seq_block
from .schedule_mode import scheduled

Combine = Callable[[tx.PrimExpr, tx.PrimExpr], tx.PrimExpr]


def _combine(reduction: str) -> Combine:
    """The new value of an element from its old value and an update (TVM's reduce_func)."""
    table: dict[str, Combine] = {
        "update": lambda old, new: new,
        "add": lambda old, new: old + new,
        "mul": lambda old, new: old * new,
        "mean": lambda old, new: (old + new) / tx.const(2, new.dtype),
        "min": lambda old, new: tx.binop(B.MIN, old, new),
        "max": lambda old, new: tx.binop(B.MAX, old, new),
    }
    if reduction not in table:
        raise NotImplementedError(f"scatter reduction {reduction!r} is not one of "
                                  f"{sorted(table)}")
    return table[reduction]


def _store(out: Buffer, flat: tx.PrimExpr, value: tx.PrimExpr, combine: Combine,
           in_range: tx.PrimExpr | None = None) -> Stmt:
    at = flat_at(out, flat)
    store = BufferStore(out, combine(tx.BufferLoad(out, at), value), at)
    if in_range is None or not scheduled():
        return store
    return IfThenElse(in_range, store)  # NOTE: a built kernel never writes out of bounds


def _within(index: tx.PrimExpr, extent: tx.PrimExpr) -> tx.PrimExpr:
    zero = tx.const(0, index.dtype)
    if extent.dtype != index.dtype:
        extent = tx.Cast(index.dtype, extent)
    return tx.binop(B.AND, tx.binop(B.LE, zero, index), tx.binop(B.LT, index, extent))


def _copy(data: Buffer, out: Buffer, kind: ForKind) -> Stmt:
    i = tx.Var("i", "int64")
    return For(i, tx.const(0, "int64"), product(data.shape), kind,
               BufferStore(out, tx.BufferLoad(data, flat_at(data, i)), flat_at(out, i)))


def _elements_kernel(data: Buffer, ind: Buffer, upd: Buffer, out: Buffer, axis: int,
                     combine: Combine) -> Stmt:
    axis_range = data.shape[axis]
    if axis_range.dtype != ind.dtype:  # TVM's cast, which folds a constant
        axis_range = tx.const(axis_range.value, ind.dtype) if isinstance(
            axis_range, tx.IntImm) else tx.Cast(ind.dtype, axis_range)
    after = product(data.shape[axis + 1:])
    ind_after = product(ind.shape[axis + 1:])
    fused = tx.Var("fused", "int64")
    outer, inner = div_mod(B.FLOORDIV, fused, ind_after), div_mod(B.FLOORMOD, fused, ind_after)
    pre_ind = add(mul(outer, mul(ind.shape[axis], ind_after)), inner)
    pre_data = add(mul(outer, mul(axis_range, after)), inner)
    k = tx.Var("k", "int64")
    at_ind = add(pre_ind, mul(k, ind_after))
    taken = tx.BufferLoad(ind, flat_at(ind, at_ind))
    shifted = add(taken, mul(tx.binop(B.LT, taken, tx.const(0, taken.dtype)), axis_range))
    update = _store(out, add(pre_data, mul(shifted, after)),
                    tx.BufferLoad(upd, flat_at(upd, at_ind)), combine,
                    _within(shifted, axis_range))
    scatter = For(fused, tx.const(0, "int64"), mul(product(ind.shape[:axis]), ind_after),
                  ForKind.PARALLEL, For(k, tx.const(0, "int64"), ind.shape[axis],
                                        ForKind.SERIAL, update))
    return seq_block("scatter_elements_generic",
                     [_copy(data, out, ForKind.PARALLEL), scatter])


def flat_kernel_fits(data: te.Tensor, indices: te.Tensor, axis: int) -> bool:
    """Whether TVM's kernel indexes these shapes right: it walks the index tensor's dims
    before and after `axis` as flat ranges of the data's, so every dim but the first, `axis`
    and the one after it must be the data's."""
    axis %= data.ndim
    return all(d in (0, axis, axis + 1) or str(a) == str(b)
               for d, (a, b) in enumerate(zip(data.shape, indices.shape)))


def scatter_elements(data: te.Tensor, indices: te.Tensor, updates: te.Tensor, axis: int = 0,
                     reduction: str = "update") -> te.Tensor:
    """out = data, then out[..., indices[p], ...] = f(that, updates[p]) along `axis` (the
    shapes must fit TVM's flat kernel: `flat_kernel_fits`)."""
    axis %= data.ndim
    if not flat_kernel_fits(data, indices, axis):
        raise ValueError(f"scatter_elements: indices of shape {list(indices.shape)} do not "
                         f"follow the data's {list(data.shape)} off the first axis and axis "
                         f"{axis}")
    combine = _combine(reduction)

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _elements_kernel(*ins, outs[0], axis, combine)
    return te.extern(data.shape, [data, indices, updates], build,
                     name="scatter_elements_generic", dtype=data.dtype,
                     attrs={"tvmlite.bare_body": True})


def _nd_kernel(data: Buffer, ind: Buffer, upd: Buffer, out: Buffer, combine: Combine) -> Stmt:
    fused_ind = product(ind.shape[1:])
    fused_upd = product(upd.shape[len(ind.shape) - 1:])
    i, j = tx.Var("j", "int64"), tx.Var("k", "int64")
    index: Any = j
    offset: Any = fused_upd
    in_range: Any = None
    for m in reversed(range(int(ind.shape[0].value))):
        taken = tx.BufferLoad(ind, flat_at(ind, add(i, mul(m, fused_ind))))
        index = add(index, mul(offset, taken))
        offset = mul(offset, data.shape[m])
        ok = _within(taken, data.shape[m])
        in_range = ok if in_range is None else tx.binop(B.AND, in_range, ok)
    update = _store(out, index, tx.BufferLoad(upd, flat_at(upd, add(mul(i, fused_upd), j))),
                    combine, in_range)
    scatter = For(i, tx.const(0, "int64"), fused_ind, ForKind.SERIAL,
                  For(j, tx.const(0, "int64"), fused_upd, ForKind.PARALLEL, update))
    return seq_block("scatter_nd_generic", [_copy(data, out, ForKind.SERIAL), scatter])


def scatter_nd(data: te.Tensor, indices: te.Tensor, updates: te.Tensor, mode: str = "update"
               ) -> te.Tensor:
    """TVM's topi.scatter_nd: `indices` is (M, Y_0, ..., Y_K-1), the index tuple along its
    first axis; out[indices[:, y], x...] = f(that, updates[y, x...])."""
    combine = _combine(mode)

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _nd_kernel(*ins, outs[0], combine)
    return te.extern(data.shape, [data, indices, updates], build, name="scatter_nd_generic",
                     dtype=data.dtype, attrs={"tvmlite.bare_body": True})
