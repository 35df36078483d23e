"""Computes of einsum, outer, variance / std, meshgrid and collapse_sum."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .schedule_mode import scheduled
from .transform import (
    _is_one, _prod, _reduce_axes, broadcast_shape, mean, multiply, subtract, sum,
)

B = tx.BinaryOp


def einsum(inputs: list[str], out: str, operands: list[te.Tensor]) -> te.Tensor:
    sizes: dict[str, Any] = {}
    for sub, t in zip(inputs, operands):
        for letter, d in zip(sub, t.shape):
            if letter not in sizes or _is_one(sizes[letter]):
                sizes[letter] = d  # an extent of 1 broadcasts against the others

    def index(sub: str, t: te.Tensor, env: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(tx.const(0, env[c].dtype) if _is_one(d) and not _is_one(sizes[c])
                     else env[c] for c, d in zip(sub, t.shape))

    reduced = [c for c in dict.fromkeys("".join(inputs)) if c not in out]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        axes = {c: te.reduce_axis(sizes[c], f"k_{c}") for c in reduced}
        env = {**dict(zip(out, i)), **axes}
        term = operands[0][index(inputs[0], operands[0], env)]
        for sub, t in zip(inputs[1:], operands[1:]):
            term = term * t[index(sub, t, env)]
        return te.sum(term, axis=list(axes.values())) if axes else term
    return te.compute(tuple(sizes[c] for c in out), body, name="T_einsum")


def outer(a: te.Tensor, b: te.Tensor) -> te.Tensor:
    return te.compute((a.shape[0], b.shape[0]), lambda i, j: a[i] * b[j], name="T_outer")


def variance(x: te.Tensor, axis: Any, keepdims: bool) -> te.Tensor:
    if not scheduled():  # TVM's stages: mean, subtract, multiply, sum, divide
        diff = subtract(x, mean(x, axis, True))
        return mean(multiply(diff, diff), axis, keepdims)
    m = mean(x, axis, True)
    axes = _reduce_axes(x, axis)
    sq = te.compute(x.shape, lambda *i: (x[i] - m[tuple(tx.const(0, "int64") if a in axes
                                                           else v for a, v in enumerate(i))])
                    * (x[i] - m[tuple(tx.const(0, "int64") if a in axes else v
                                      for a, v in enumerate(i))]), name="T_sq_diff")
    s = sum(sq, axis, keepdims)
    count = simplify(_prod(x.shape[a] for a in axes))
    return te.compute(s.shape, lambda *i: s[i] / tx.Cast(x.dtype, count), name="T_variance")


def std(x: te.Tensor, axis: Any, keepdims: bool) -> te.Tensor:
    v = variance(x, axis, keepdims)
    return te.compute(v.shape, lambda *i: tx.Call(x.dtype, "tir.sqrt", (v[i],)),
                      name="T_std" if scheduled() else "compute")


def meshgrid(xs: list[te.Tensor], indexing: str) -> list[te.Tensor]:
    dims = [t.shape[0] for t in xs]
    pos = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        dims[0], dims[1] = dims[1], dims[0]
        pos[0], pos[1] = 1, 0
    return [te.compute(tuple(dims), (lambda t, p: lambda *i: t[(i[p],)])(t, pos[k]),
                       name="T_meshgrid") for k, t in enumerate(xs)]


def collapse_sum(x: te.Tensor, target: tuple[Any, ...]) -> te.Tensor:
    """Sum `x` over the axes that broadcasting `target` to x's shape would have made."""
    lead = x.ndim - len(target)
    axes = list(range(lead)) + [lead + k for k, d in enumerate(target)
                                if isinstance(simplify(d), tx.IntImm) and simplify(d).value == 1
                                and not (isinstance(simplify(x.shape[lead + k]), tx.IntImm)
                                         and simplify(x.shape[lead + k]).value == 1)]
    if not axes:
        return te.compute(x.shape, lambda *i: x[i], name="T_collapse_sum")
    if not scheduled():
        return _collapse_sum_plain(x, tuple(target), lead, axes)
    s = sum(x, axes, True)
    return te.compute(tuple(target), lambda *i: s[(tx.const(0, "int64"),) * lead + tuple(i)],
                      name="T_collapse_sum")


def _collapse_sum_plain(x: te.Tensor, target: tuple[Any, ...], lead: int, axes: list[int]
                        ) -> te.Tensor:
    """TVM's form: one reduction straight into the target shape, x read at the output's
    indices on kept axes and at a reduce axis (`k<axis>`) on summed ones."""
    red = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in axes}

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        src = tuple(red[a] if a in red else i[a - lead] for a in range(x.ndim))
        return te.sum(x[src], axis=list(red.values()))
    return te.compute(target, body, name="x_red")


def matmul_plain(a: te.Tensor, b: te.Tensor, out_dtype: str | None = None) -> te.Tensor:
    """TVM's plain `relax.matmul` compute: numpy broadcasting of the batch dims (size-1 dims
    read at 0), 1-d operands without their unit axis, spatial loops then the k loop, operands
    cast to out_dtype before the product."""
    dt = out_dtype or a.dtype
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    one = tx.const(1, "int64")
    sa = (one,) + tuple(a.shape) if a_vec else tuple(a.shape)
    sb = tuple(b.shape) + (one,) if b_vec else tuple(b.shape)
    batch = broadcast_shape(sa[:-2], sb[:-2])
    shape = batch + (() if a_vec else (sa[-2],)) + (() if b_vec else (sb[-1],))
    nb = len(batch)
    k = te.reduce_axis(sa[-1], "k")

    def read(t: te.Tensor, idx: tuple[Any, ...], last: tuple[Any, ...]) -> tx.PrimExpr:
        lead = t.ndim - len(last)
        bi = bcast_batch(t.shape[:lead], idx[nb - lead:nb], batch[nb - lead:]) if lead else ()
        v = t[bi + last]
        return v if v.dtype == dt else tx.Cast(dt, v)

    def body(*idx: tx.PrimExpr) -> tx.PrimExpr:
        av = read(a, idx, (k,) if a_vec else (idx[nb], k))
        bv = read(b, idx, (k,) if b_vec else (k, idx[-1]))
        return te.sum(av * bv, axis=k)
    return te.compute(shape, body, name="matmul")


def bcast_batch(dims: tuple[Any, ...], idx: tuple[Any, ...], out: tuple[Any, ...]
                ) -> tuple[Any, ...]:
    """Batch indices of an operand: a size-1 dim broadcast to a longer one reads at 0."""
    return tuple(tx.const(0, "int64") if _is_one(d) and not _is_one(o) else i
                 for d, i, o in zip(dims, idx, out))
