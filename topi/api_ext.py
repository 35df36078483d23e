"""TVM's `topi` names with TVM's signatures, over the computes of the sibling modules: creators,
reductions (all/any/argmin), shape utilities, split/squeeze, scans, sort/topk and einsum."""

from __future__ import annotations

import math
from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from . import creation, indexing, linalg_stats, losses, scatter_flat, scatter_index
from .math_ext import mod  # noqa: F401 (re-exported)
from .transform import _call, _prod, _reduce, argmax, cast, strided_slice, unary

B = tx.BinaryOp
log2, log10 = unary("log2", _call("log2")), unary("log10", _call("log10"))
# NOTE: TVM's fast_* are polynomial approximations; the exact functions meet their tolerance
fast_exp, fast_tanh, fast_erf = (unary(n, _call(n.removeprefix("fast_")))
                                 for n in ("fast_exp", "fast_tanh", "fast_erf"))


def reinterpret(x: te.Tensor, dtype: str) -> te.Tensor:
    """The bits of each element read as `dtype` (of the same width)."""
    return te.compute(x.shape, lambda *i: tx.Call(dtype, "tir.reinterpret", (x[i],)),
                      name="T_reinterpret")


class InvalidShapeError(ValueError):
    """An operator was given shapes it cannot take (TVM's topi.InvalidShapeError)."""


def get_const_tuple(in_tuple: Any) -> tuple[Any, ...]:
    """The dims as Python ints where constant (symbolic dims are kept as expressions)."""
    out = []
    for d in in_tuple:
        d = simplify(d) if isinstance(d, tx.PrimExpr) else d
        out.append(int(d.value) if isinstance(d, tx.IntImm) else d)
    return tuple(out)


def _int(d: Any, what: str) -> int:
    d = simplify(d) if isinstance(d, tx.PrimExpr) else d
    if isinstance(d, tx.IntImm):
        return int(d.value)
    if isinstance(d, int):
        return d
    raise InvalidShapeError(f"{what} must be a constant, got {d}")


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str = "float32") -> te.Tensor:
    if stop is None:
        start, stop = 0, start
    n = math.ceil((float(_num(stop)) - float(_num(start))) / float(_num(step)))
    return creation.arange(start, step, max(n, 0), dtype)


def _num(v: Any) -> Any:
    return v.value if isinstance(v, (tx.IntImm, tx.FloatImm)) else v


def full_like(x: te.Tensor, fill_value: Any) -> te.Tensor:
    return creation.full_like(x, _num(fill_value), x.dtype)


def eye(n: int, m: int | None = None, k: int = 0, dtype: str = "float32") -> te.Tensor:
    return creation.eye(n, n if m is None else m, k, dtype)


def trilu(data: te.Tensor, k: Any, upper: bool) -> te.Tensor:
    return creation.trilu(data, k, bool(upper))


def _bool_reduce(combiner: str, data: te.Tensor, axis: Any, keepdims: bool) -> te.Tensor:
    as_int = cast(data, "int8")
    red = _reduce(combiner, as_int, axis, keepdims, f"T_{combiner}")
    return cast(red, "bool")


def all(data: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:  # noqa: A001
    return _bool_reduce("min", data, axis, keepdims)


def any(data: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:  # noqa: A001
    return _bool_reduce("max", data, axis, keepdims)


def argmin(data: te.Tensor, axis: Any = None, keepdims: bool = False,
           select_last_index: bool = False) -> te.Tensor:
    if select_last_index:
        raise NotImplementedError("topi.argmin: select_last_index=True is not supported")
    return argmax(data, axis, keepdims, lowest=True)


def squeeze(a: te.Tensor, axis: Any = None) -> te.Tensor:
    dims = get_const_tuple(a.shape)
    if axis is None:
        drop = {k for k, d in enumerate(dims) if d == 1}
    else:
        drop = {k % a.ndim for k in ((axis,) if isinstance(axis, int) else axis)}
        bad = [k for k in drop if dims[k] != 1]
        if bad:
            raise InvalidShapeError(f"topi.squeeze: axis {bad[0]} has size {dims[bad[0]]}, not 1")
    kept = [k for k in range(a.ndim) if k not in drop]
    zero = tx.const(0, "int64")

    def read(*i: Any) -> Any:  # each kept dim is read at its own index: elementwise, as TVM
        at = dict(zip(kept, i))
        return a(*(at.get(k, zero) for k in range(a.ndim)))

    return te.compute(tuple(a.shape[k] for k in kept), read, name="T_squeeze")


def split(ary: te.Tensor, indices_or_sections: Any, axis: int = 0) -> list[te.Tensor]:
    axis %= ary.ndim
    n = _int(ary.shape[axis], "topi.split's axis size")
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise InvalidShapeError(f"topi.split: {n} does not divide into "
                                    f"{indices_or_sections} sections")
        step = n // indices_or_sections
        cuts = list(range(step, n, step))
    else:
        cuts = [_int(c, "topi.split's index") for c in indices_or_sections]
    bounds = [0, *cuts, n]
    return [strided_slice(ary, [(tx.const(lo if a == axis else 0, "int64"),
                                 tx.const(hi - lo, "int64") if a == axis else d, 1)
                                for a, d in enumerate(ary.shape)])
            for lo, hi in zip(bounds, bounds[1:])]


def cumsum(data: te.Tensor, axis: int | None = None, dtype: str | None = None,
           exclusive: bool | None = None) -> te.Tensor:
    return indexing.cumulative(data, axis, dtype or data.dtype, bool(exclusive), "sum")


def cumprod(data: te.Tensor, axis: int | None = None, dtype: str | None = None,
            exclusive: bool | None = None) -> te.Tensor:
    return indexing.cumulative(data, axis, dtype or data.dtype, bool(exclusive), "prod")


def shape(array: te.Tensor, dtype: str = "int32") -> te.Tensor:
    dims = [tx.const(d, dtype) if isinstance(d, int) else tx.Cast(dtype, d)
            for d in get_const_tuple(array.shape)]

    def body(i: tx.PrimExpr) -> tx.PrimExpr:
        out = dims[-1]
        for k in range(len(dims) - 2, -1, -1):
            out = tx.Select(tx.binop(B.EQ, i, tx.const(k, "int64")), dims[k], out)
        return out
    return te.compute((array.ndim,), body, name="T_shape")


def tensor_size(array: te.Tensor, dtype: str = "int32") -> te.Tensor:
    n = simplify(_prod(array.shape))
    return te.compute((), lambda: tx.Cast(dtype, n) if n.dtype != dtype else n,
                      name="T_tensor_size")


def elemwise_sum(xs: list[te.Tensor]) -> te.Tensor:
    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        out = xs[0][i]
        for t in xs[1:]:
            out = out + t[i]
        return out
    return te.compute(xs[0].shape, body, name="T_elemwise_sum")


def expand_like(a: te.Tensor, shape_like: te.Tensor, axis: Any) -> te.Tensor:
    """Broadcast `a` to `shape_like`'s shape, its dims going where `axis` does not point."""
    new = sorted(k % shape_like.ndim for k in axis)
    if a.ndim + len(new) != shape_like.ndim:
        raise InvalidShapeError(f"topi.expand_like: {a.ndim} dims plus {len(new)} new axes is "
                                f"not the {shape_like.ndim} of shape_like")
    kept = [k for k in range(shape_like.ndim) if k not in new]
    return te.compute(shape_like.shape, lambda *i: a[tuple(i[k] for k in kept)],
                      name="T_expand_like")


def collapse_sum(data: te.Tensor, target_shape: Any) -> te.Tensor:
    return linalg_stats.collapse_sum(data, tuple(
        tx.const(d, "int64") if isinstance(d, int) else d for d in target_shape))


def meshgrid(a_tuple: Any, indexing: str) -> list[te.Tensor]:
    return linalg_stats.meshgrid(list(a_tuple), indexing)


def reverse_sequence(a: te.Tensor, seq_lengths: te.Tensor, seq_axis: int = 1,
                     batch_axis: int = 0) -> te.Tensor:
    return losses.reverse_sequence(a, seq_lengths, seq_axis, batch_axis)


def gather(data: te.Tensor, axis: int, indices: te.Tensor) -> te.Tensor:
    return indexing.gather_elements(data, indices, axis)


def scatter_nd(data: te.Tensor, indices: te.Tensor, updates: te.Tensor, mode: str = "update"
               ) -> te.Tensor:
    """TVM's layout: indices are (M, Y_0, ..., Y_K-1), the index tuple on the first axis."""
    return scatter_flat.scatter_nd(data, indices, updates, mode)


def hamming_window(window_size: Any, periodic: Any, alpha: Any, beta: Any, dtype: str
                   ) -> te.Tensor:
    return losses.hamming_window(*(tx.const(v) for v in (window_size, periodic, alpha, beta)),
                                 dtype)


def sort(data: te.Tensor, axis: int = -1, is_ascend: Any = 1) -> te.Tensor:
    return indexing.sort_by_rank(data, axis, not is_ascend)


def argsort(data: te.Tensor, valid_count: Any = None, axis: int = -1, is_ascend: Any = 1,
            dtype: str = "float32") -> te.Tensor:
    if valid_count is not None:
        raise NotImplementedError("topi.argsort: valid_count is not supported")
    return indexing.sort_by_rank(data, axis, not is_ascend, want="indices", dtype=dtype)


def topk(data: te.Tensor, k: int = 1, axis: int = -1, ret_type: str = "both",
         is_ascend: bool = False, dtype: str = "int64") -> Any:
    k = _int(k, "topi.topk's k") if k >= 1 else _int(data.shape[axis], "topk axis")
    values = indexing.sort_by_rank(data, axis, not is_ascend, k)
    idx = indexing.sort_by_rank(data, axis, not is_ascend, k, want="indices", dtype=dtype)
    return {"both": [values, idx], "values": values, "indices": idx}[ret_type]


def index_put(data: te.Tensor, indices: Any, values: te.Tensor, accumulate: bool = False
              ) -> te.Tensor:
    return scatter_index.index_put(data, list(indices), values, accumulate)


def einsum(subscripts: str, *operand: te.Tensor) -> te.Tensor:
    spec = subscripts.replace(" ", "")
    if "..." in spec:
        raise NotImplementedError("topi.einsum: ellipsis subscripts are not supported")
    lhs, _, out = spec.partition("->")
    inputs = lhs.split(",")
    if "->" not in spec:  # implicit output: the letters seen once, sorted
        letters = "".join(inputs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if len(inputs) != len(operand):
        raise ValueError(f"topi.einsum: {len(inputs)} subscripts for {len(operand)} operands")
    return linalg_stats.einsum(inputs, out, list(operand))
