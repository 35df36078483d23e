"""Computes of einsum, outer, variance / std, meshgrid and collapse_sum."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .transform import _prod, _reduce_axes, mean, sum

B = tx.BinaryOp


def einsum(inputs: list[str], out: str, operands: list[te.Tensor]) -> te.Tensor:
    sizes: dict[str, Any] = {}
    for sub, t in zip(inputs, operands):
        for letter, d in zip(sub, t.shape):
            sizes.setdefault(letter, d)
    reduced = [c for c in dict.fromkeys("".join(inputs)) if c not in out]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        axes = {c: te.reduce_axis(sizes[c], f"k_{c}") for c in reduced}
        env = {**dict(zip(out, i)), **axes}
        term = operands[0][tuple(env[c] for c in inputs[0])]
        for sub, t in zip(inputs[1:], operands[1:]):
            term = term * t[tuple(env[c] for c in sub)]
        return te.sum(term, axis=list(axes.values())) if axes else term
    return te.compute(tuple(sizes[c] for c in out), body, name="T_einsum")


def outer(a: te.Tensor, b: te.Tensor) -> te.Tensor:
    return te.compute((a.shape[0], b.shape[0]), lambda i, j: a[i] * b[j], name="T_outer")


def variance(x: te.Tensor, axis: Any, keepdims: bool) -> te.Tensor:
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
    return te.compute(v.shape, lambda *i: tx.Call(x.dtype, "tir.sqrt", (v[i],)), name="T_std")


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
    s = sum(x, axes, True)
    return te.compute(tuple(target), lambda *i: s[(tx.const(0, "int64"),) * lead + tuple(i)],
                      name="T_collapse_sum")
