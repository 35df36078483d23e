"""More of TVM's topi transforms, with TVM's signatures: diagonals, masks, index arithmetic,
windows, tensordot, searchsorted, strided/slice scatter and layout transforms."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .api_ext import InvalidShapeError, get_const_tuple

B = tx.BinaryOp


def _i64(v: Any) -> tx.PrimExpr:
    v = tx.const(v, "int64") if not isinstance(v, tx.PrimExpr) else v
    return v if v.dtype == "int64" else tx.Cast("int64", v)


def matrix_set_diag(data: te.Tensor, diagonal: te.Tensor, k: Any = 0,
                    align: str = "RIGHT_LEFT") -> te.Tensor:
    """`data` with its diagonals k_lo..k_hi of the last two axes replaced by `diagonal`."""
    lo, hi = (k, k) if isinstance(k, int) else (int(k[0]), int(k[1]))
    rows, cols = (int(d) for d in get_const_tuple(data.shape[-2:]))
    max_len = max(min(rows + min(d, 0), cols - max(d, 0)) for d in range(lo, hi + 1))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        r, c = i[-2], i[-1]
        d = c - r
        base = tx.Select(tx.binop(B.GE, d, _i64(0)), r, c)
        if lo == hi:
            return tx.Select(tx.binop(B.EQ, d, _i64(lo)), diagonal[(*i[:-2], base)], data[i])
        inside = tx.binop(B.AND, tx.binop(B.GE, d, _i64(lo)), tx.binop(B.LE, d, _i64(hi)))
        pos = _aligned(base, d, rows, cols, max_len, align)
        row = tx.Select(inside, _i64(hi) - d, _i64(0))
        return tx.Select(inside, diagonal[(*i[:-2], row, tx.Select(inside, pos, _i64(0)))],
                         data[i])
    return te.compute(data.shape, body, name="T_matrix_set_diag")


def _aligned(base: Any, d: Any, rows: int, cols: int, max_len: int, align: str) -> Any:
    """Where an element of diagonal d sits in its row of `diagonal` (TVM's alignment names
    super_sub: RIGHT packs a shorter diagonal against the row's end)."""
    length = tx.binop(B.MIN, _i64(rows) + tx.binop(B.MIN, d, _i64(0)),
                      _i64(cols) - tx.binop(B.MAX, d, _i64(0)))
    sup, sub = align.split("_")
    right = tx.Select(tx.binop(B.GE, d, _i64(0)), tx.const(sup == "RIGHT", "bool"),
                      tx.const(sub == "RIGHT", "bool"))
    return tx.Select(right, base + _i64(max_len) - length, base)


def sequence_mask(data: te.Tensor, valid_length: te.Tensor, mask_value: Any = 0,
                  axis: int = 0) -> te.Tensor:
    """Elements at or past each batch's valid length along `axis` (0 or 1) become mask_value;
    the batch axis is the other of the two."""
    if axis not in (0, 1):
        raise ValueError(f"topi.sequence_mask: axis must be 0 or 1, got {axis}")
    batch = 1 - axis

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        n = _i64(valid_length[(i[batch],)])
        return tx.Select(tx.binop(B.LT, i[axis], n), data[i], tx.const(mask_value, data.dtype))
    return te.compute(data.shape, body, name="T_sequence_mask")


def unravel_index(indices: te.Tensor, shape: te.Tensor) -> te.Tensor:
    """Flat indices (a scalar or a vector) to coordinates in `shape` (a 1-D tensor)."""
    ndim = int(get_const_tuple(shape.shape)[0])

    def coord(k: tx.PrimExpr, flat: tx.PrimExpr) -> tx.PrimExpr:
        out = tx.const(0, indices.dtype)
        for j in range(ndim - 1, -1, -1):
            d = shape[(tx.const(j, "int64"),)]
            here = tx.binop(B.FLOORMOD, flat, d)
            out = tx.Select(tx.binop(B.EQ, k, tx.const(j, "int64")), here, out)
            flat = tx.binop(B.FLOORDIV, flat, d)
        return out
    if indices.ndim == 0:
        return te.compute((ndim,), lambda k: coord(k, indices[()]), name="T_unravel_index")
    return te.compute((ndim, indices.shape[0]), lambda k, n: coord(k, indices[(n,)]),
                      name="T_unravel_index")


def tensordot(a: te.Tensor, b: te.Tensor, axes: Any) -> te.Tensor:
    """Contract a's `axes[0]` with b's `axes[1]` (or a's last n with b's first n for int n)."""
    if isinstance(axes, int):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        ax_a, ax_b = ([x] if isinstance(x, int) else list(x) for x in axes)
    ax_a, ax_b = [x % a.ndim for x in ax_a], [x % b.ndim for x in ax_b]
    free_a = [k for k in range(a.ndim) if k not in ax_a]
    free_b = [k for k in range(b.ndim) if k not in ax_b]
    out_shape = tuple(a.shape[k] for k in free_a) + tuple(b.shape[k] for k in free_b)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        ks = [te.reduce_axis(a.shape[x], f"k{n}") for n, x in enumerate(ax_a)]
        ia = dict(zip(free_a, i[:len(free_a)])) | dict(zip(ax_a, ks))
        ib = dict(zip(free_b, i[len(free_a):])) | dict(zip(ax_b, ks))
        prod = a[tuple(ia[k] for k in range(a.ndim))] * b[tuple(ib[k] for k in range(b.ndim))]
        return te.sum(prod, axis=ks) if ks else prod
    return te.compute(out_shape, body, name="T_tensordot")


def sliding_window(data: te.Tensor, axis: int, window_shape: Any, strides: Any) -> te.Tensor:
    """Windows over the axes from `axis` on: out[..., w_0.., e_0..] = data[..., w*s + e]."""
    axis %= data.ndim
    n = len(window_shape)
    if axis + n != data.ndim or len(strides) != n:
        raise InvalidShapeError("topi.sliding_window: window_shape and strides must cover the "
                                "axes from `axis` to the last")
    dims = get_const_tuple(data.shape)
    counts = [(int(dims[axis + j]) - window_shape[j]) // strides[j] + 1 for j in range(n)]
    shape = (*data.shape[:axis], *counts, *window_shape)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        w, e = i[axis:axis + n], i[axis + n:]
        return data[(*i[:axis], *(w[j] * strides[j] + e[j] for j in range(n)))]
    return te.compute(shape, body, name="T_sliding_window")


def searchsorted(sorted_sequence: te.Tensor, values: te.Tensor, right: bool = False,
                 out_dtype: str = "int64") -> te.Tensor:
    """For each value, how many sorted elements (of its row) lie before it (numpy's rule)."""
    n = sorted_sequence.shape[-1]
    lead = sorted_sequence.ndim - 1

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        k = te.reduce_axis(n, "k")
        elem = sorted_sequence[(*i[:lead], k)]
        before = tx.binop(B.LE if right else B.LT, elem, values[i])
        return te.sum(tx.Select(before, tx.const(1, out_dtype), tx.const(0, out_dtype)), axis=k)
    return te.compute(values.shape, body, name="T_searchsorted")


def strided_set(a: te.Tensor, v: te.Tensor, begin: Any, end: Any, strides: Any = None
                ) -> te.Tensor:
    """`a` with the strided region begin:end:strides replaced by `v` (positive strides)."""
    begin, end = list(get_const_tuple(begin)), list(get_const_tuple(end))
    strides = [1] * len(begin) if strides is None else list(get_const_tuple(strides))
    if any(s <= 0 for s in strides):
        raise NotImplementedError("topi.strided_set: only positive strides are supported")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        hit, src = tx.const(True, "bool"), []
        for k, ix in enumerate(i):
            if k >= len(begin):
                src.append(ix)
                continue
            rel = ix - _i64(begin[k])
            hit = tx.binop(B.AND, hit, within_index(begin[k], end[k], strides[k], ix))
            src.append(tx.binop(B.FLOORDIV, tx.binop(B.MAX, rel, _i64(0)), _i64(strides[k])))
        return tx.Select(hit, v[tuple(_clamp(s, v.shape[k]) for k, s in enumerate(src))], a[i])
    return te.compute(a.shape, body, name="T_strided_set")


def _clamp(i: tx.PrimExpr, n: tx.PrimExpr) -> tx.PrimExpr:
    return tx.binop(B.MIN, i, _i64(n) - 1)


def within_index(b: Any, e: Any, s: Any, i: Any) -> tx.PrimExpr:
    """Whether index i is one of b, b+s, ... before e (s may be negative)."""
    b, e, s, i = (_i64(x) for x in (b, e, s, i))
    s_pos = isinstance(simplify(s), tx.IntImm) and simplify(s).value > 0
    lo, hi = (b, e) if s_pos else (e, b)
    in_range = tx.binop(B.AND, tx.binop(B.GE if s_pos else B.GT, i, lo),
                        tx.binop(B.LT if s_pos else B.LE, i, hi))
    return tx.binop(B.AND, in_range, tx.binop(B.EQ, tx.binop(B.FLOORMOD, i - b, s), _i64(0)))


def make_idx(b: Any, e: Any, s: Any, z: Any, i: Any) -> tx.PrimExpr:
    """Position of index i in the strided range b:e:s, or z past it (TVM's helper)."""
    b, e, s, z, i = (_i64(x) for x in (b, e, s, z, i))
    s_pos = isinstance(simplify(s), tx.IntImm) and simplify(s).value > 0
    bc = tx.Select(tx.binop(B.LT, s, _i64(0)), tx.binop(B.LE, i, e),
                   tx.binop(B.LT, i, b)) if not s_pos else tx.binop(B.LT, i, b)
    ss = tx.Select(tx.binop(B.LT, s, _i64(0)), (b - i) // (b - e + 1), (i - b) // s)
    return tx.Select(tx.binop(B.OR, bc, tx.binop(B.GE if s_pos else B.GT, i, e)), z, ss)


def const_vector(vector: Any, name: str = "const_vector") -> te.Tensor:
    """A 1-D tensor holding the numpy/list `vector`'s values."""
    import numpy as np

    arr = np.asarray(vector)
    vals = [tx.const(v.item(), str(arr.dtype)) for v in arr.reshape(-1)]

    def body(i: tx.PrimExpr) -> tx.PrimExpr:
        out = vals[-1]
        for k in range(len(vals) - 2, -1, -1):
            out = tx.Select(tx.binop(B.EQ, i, tx.const(k, "int64")), vals[k], out)
        return out
    return te.compute((len(vals),), body, name=name)


def ceil_log2(x: Any) -> tx.PrimExpr:
    """ceil(log2(x)) of a scalar expression, in x's dtype (through float64 for integers)."""
    x = tx.const(x)
    if x.dtype.startswith("float"):
        return tx.Call(x.dtype, "tir.ceil", (tx.Call(x.dtype, "tir.log2", (x,)),))
    f = tx.Cast("float64", x)
    return tx.Cast(x.dtype, tx.Call("float64", "tir.ceil", (tx.Call("float64", "tir.log2", (f,)),)))


def fixed_point_multiply(x: te.Tensor, multiplier: int, shift: int) -> te.Tensor:
    """round(x * multiplier * 2**shift / 2**31) on int32, half up (TVM's q_multiply_shift)."""
    total = 31 - int(shift)
    if total < 1:
        raise ValueError(f"topi.fixed_point_multiply: shift {shift} must be at most 30")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        wide = _i64(x[i]) * tx.const(int(multiplier), "int64")
        rounded = tx.binop(B.FLOORDIV, wide + tx.const(1 << (total - 1), "int64"),
                           tx.const(1 << total, "int64"))
        return tx.Cast(x.dtype, rounded)
    return te.compute(x.shape, body, name="T_fixed_point_multiply")


def sparse_to_dense(sparse_indices: te.Tensor, output_shape: Any, sparse_values: te.Tensor,
                    default_value: Any = 0) -> te.Tensor:
    """A dense tensor holding sparse_values at sparse_indices ((n,) or (n, ndim)), the
    default elsewhere (a scalar sparse_values fills every listed position)."""
    shape = tuple(int(d) for d in get_const_tuple(output_shape))
    n = sparse_indices.shape[0]
    dtype = sparse_values.dtype

    def matches(k: Any, i: tuple[Any, ...]) -> tx.PrimExpr:
        if sparse_indices.ndim == 1:
            return tx.binop(B.EQ, _i64(sparse_indices[k]), i[0])
        return te.all(*(tx.binop(B.EQ, _i64(sparse_indices[k, tx.const(d, "int64")]), i[d])
                        for d in range(len(shape))))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        k = te.reduce_axis(n, "k")
        return te.max(tx.Select(matches(k, i), k, tx.const(-1, "int64")), axis=k)
    last = te.compute(shape, body, name="T_sparse_to_dense_pos")
    default = default_value[()] if isinstance(default_value, te.Tensor) else tx.const(
        default_value, dtype)

    def fill(*i: tx.PrimExpr) -> tx.PrimExpr:
        pos = last[i]
        value = sparse_values[()] if sparse_values.ndim == 0 else sparse_values[
            tx.binop(B.MAX, pos, _i64(0))]
        return tx.Select(tx.binop(B.GE, pos, _i64(0)), value, default)
    return te.compute(shape, fill, name="T_sparse_to_dense")


def dft(re_data: te.Tensor, im_data: te.Tensor, inverse: Any) -> list[te.Tensor]:
    """The discrete Fourier transform along the last axis ([real, imaginary]); the inverse
    one divides by the length, as numpy's ifft."""
    n = re_data.shape[-1]
    dtype = re_data.dtype
    sign = 1.0 if inverse else -1.0
    count = int(get_const_tuple((n,))[0])

    def part(imag: bool) -> te.Tensor:
        def body(*i: tx.PrimExpr) -> tx.PrimExpr:
            k = te.reduce_axis(n, "k")
            angle = (tx.const(sign * 2 * 3.141592653589793 / count, dtype)
                     * tx.Cast(dtype, tx.binop(B.FLOORMOD, i[-1] * k, _i64(count))))
            cos = tx.Call(dtype, "tir.cos", (angle,))
            sin = tx.Call(dtype, "tir.sin", (angle,))
            re, im = re_data[(*i[:-1], k)], im_data[(*i[:-1], k)]
            term = re * sin + im * cos if imag else re * cos - im * sin
            return te.sum(term, axis=k)
        out = te.compute(re_data.shape, body, name="T_dft_im" if imag else "T_dft_re")
        if not inverse:
            return out
        return te.compute(out.shape, lambda *i: out[i] / tx.const(count, dtype),
                          name="T_idft_im" if imag else "T_idft_re")
    return [part(False), part(True)]


def dynamic_strided_slice(a: te.Tensor, begin: te.Tensor, end: te.Tensor, strides: te.Tensor,
                          output_shape: Any) -> te.Tensor:
    """a[begin:end:strides] with the bounds read from 1-D tensors at run time; the caller
    gives the result's shape. A negative begin counts from the end, as numpy's."""
    if output_shape is None:
        raise ValueError("topi.dynamic_strided_slice: output_shape must be given")
    ndim = int(get_const_tuple(begin.shape)[0])

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        src = []
        for k, ix in enumerate(i):
            if k >= ndim:
                src.append(ix)
                continue
            pos = tx.const(k, "int64")
            b = _i64(begin[pos])
            b = tx.Select(tx.binop(B.LT, b, _i64(0)), b + _i64(a.shape[k]), b)
            src.append(b + ix * _i64(strides[pos]))
        return a[tuple(src)]
    return te.compute(tuple(output_shape), body, name="T_dynamic_strided_slice")
