"""Computes of `R.image.resize3d` (NCDHW, nearest or trilinear) and `R.image.grid_sample`
(NCHW, bilinear or nearest, zeros or border padding), as TVM's topi defines them."""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from .nn_ext import _f, _floor_i64, _i, _nearest, _source_coord

B = tx.BinaryOp
F32 = "float32"


def _clamp(v: tx.PrimExpr, n: tx.PrimExpr) -> tx.PrimExpr:
    return tx.binop(B.MIN, tx.binop(B.MAX, v, _i(0)), n - 1)


def resize3d(x: te.Tensor, size: Any, method: str, coords: str, rounding: str,
             out_dtype: str) -> te.Tensor:
    n, c, *dims = x.shape
    out = [_i(s) for s in size]
    if method == "nearest_neighbor" and coords != "align_corners" and not rounding:
        rounding = "floor"  # TVM's default for nearest without align_corners

    def body(b: Any, f: Any, z: Any, y: Any, xx: Any) -> tx.PrimExpr:
        src = [_source_coord(v, dims[k], out[k], coords) for k, v in enumerate((z, y, xx))]
        if method == "nearest_neighbor":
            return _f(x[(b, f, *(_nearest(s, rounding, dims[k]) for k, s in enumerate(src)))],
                      out_dtype)
        lo = [_floor_i64(s) for s in src]
        frac = [s - _f(v, F32) for s, v in zip(src, lo)]
        total = None
        for corner in range(8):
            bits = [(corner >> (2 - k)) & 1 for k in range(3)]
            idx = tuple(_clamp(lo[k] + bits[k], dims[k]) for k in range(3))
            weight = None
            for k in range(3):
                w = frac[k] if bits[k] else _f(1.0, F32) - frac[k]
                weight = w if weight is None else weight * w
            term = _f(x[(b, f, *idx)], F32) * weight
            total = term if total is None else total + term
        return _f(total, out_dtype)
    return te.compute((n, c, *out), body, name="resize")


def _unnormalize(g: tx.PrimExpr, size: tx.PrimExpr, align_corners: bool) -> tx.PrimExpr:
    one, half = _f(1.0, F32), _f(0.5, F32)
    fsize = _f(size, F32)
    if align_corners:
        return (g + one) * half * (fsize - one)
    return ((g + one) * fsize - one) * half


def grid_sample(x: te.Tensor, grid: te.Tensor, method: str, padding_mode: str,
                align_corners: bool) -> te.Tensor:
    n, c, h, w = x.shape
    _, _, oh, ow = grid.shape
    zero = _f(0.0, F32)

    def coords(b: Any, y: Any, xx: Any) -> tuple[tx.PrimExpr, tx.PrimExpr]:
        ix = _unnormalize(_f(grid[b, 0, y, xx], F32), w, align_corners)
        iy = _unnormalize(_f(grid[b, 1, y, xx], F32), h, align_corners)
        if padding_mode == "border":
            ix = tx.binop(B.MIN, tx.binop(B.MAX, ix, zero), _f(w, F32) - _f(1.0, F32))
            iy = tx.binop(B.MIN, tx.binop(B.MAX, iy, zero), _f(h, F32) - _f(1.0, F32))
        return iy, ix

    def read(b: Any, f: Any, yy: tx.PrimExpr, xc: tx.PrimExpr) -> tx.PrimExpr:
        v = _f(x[b, f, _clamp(yy, h), _clamp(xc, w)], F32)
        inside = tx.binop(B.AND, tx.binop(B.AND, yy >= 0, yy < h),
                          tx.binop(B.AND, xc >= 0, xc < w))
        return tx.Select(inside, v, zero)

    def body(b: Any, f: Any, y: Any, xx: Any) -> tx.PrimExpr:
        iy, ix = coords(b, y, xx)
        if method == "nearest":
            return _f(read(b, f, _floor_i64(iy + _f(0.5, F32)), _floor_i64(ix + _f(0.5, F32))),
                      x.dtype)
        y0, x0 = _floor_i64(iy), _floor_i64(ix)
        dy, dx = iy - _f(y0, F32), ix - _f(x0, F32)
        one = _f(1.0, F32)
        top = read(b, f, y0, x0) * (one - dx) + read(b, f, y0, x0 + 1) * dx
        bottom = read(b, f, y0 + 1, x0) * (one - dx) + read(b, f, y0 + 1, x0 + 1) * dx
        return _f(top * (one - dy) + bottom * dy, x.dtype)
    return te.compute((n, c, oh, ow), body, name="grid_sample")


def resize2d_nearest_asymmetric(x: te.Tensor, size: Any, layout: str, rounding: str,
                                out_dtype: str) -> te.Tensor:
    """TVM's nearest-neighbour resize with asymmetric coordinates in any layout naming H and
    W: each output index scaled by in/out, rounded, and clamped to the input."""
    import re

    axes = re.findall(r"\d*[A-Za-z]", layout)
    pos = (axes.index("H"), axes.index("W"))
    shape = list(x.shape)
    for p, s in zip(pos, size):
        shape[p] = s

    def scale(n: tx.PrimExpr, m: tx.PrimExpr) -> tx.PrimExpr:
        if isinstance(n, tx.IntImm) and isinstance(m, tx.IntImm):
            return tx.const(n.value / m.value, "float32")
        return tx.Cast("float32", n) / tx.Cast("float32", m)

    def nearest(v: tx.PrimExpr, n: tx.PrimExpr, m: tx.PrimExpr) -> tx.PrimExpr:
        at = scale(n, m) * tx.Cast("float32", v)
        k = tx.Cast("int64", tx.Call("float32", f"tir.{rounding or 'round'}", (at,)))
        last = n - 1 if not isinstance(n, tx.IntImm) else tx.const(n.value - 1, "int64")
        return tx.binop(B.MAX, tx.binop(B.MIN, k, last), tx.const(0, "int64"))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        src = list(i)
        for p in pos:
            src[p] = nearest(i[p], x.shape[p], shape[p])
        v = x[tuple(src)]
        return v if v.dtype == out_dtype else tx.Cast(out_dtype, v)
    return te.compute(tuple(shape), body, name="resize")


def affine_grid(theta: te.Tensor, size: Any, align_corners: bool = True) -> te.Tensor:
    """TVM's topi.image.affine_grid: out[n, d, *i] = theta[n, d, k] + the sum over the spatial
    axes (last first) of theta[n, d, j] times the normalized coordinate of that axis."""
    k = len(size)
    dims = [int(s.value) if isinstance(s, tx.IntImm) else int(s) for s in size]
    dt = theta.dtype
    if align_corners:
        starts = [-1.0] * k
        steps = [(2.0 - 1e-7) / (d - 1) for d in dims]
    else:
        starts = [-1.0 + 1.0 / d for d in dims]
        steps = [2.0 / d for d in dims]

    def body(*o: tx.PrimExpr) -> tx.PrimExpr:
        n, d, spatial = o[0], o[1], o[2:]
        out = theta[n, d, tx.const(k, "int64")]
        for axis in range(k):
            coord = tx.const(starts[axis], dt) + tx.Cast(dt, spatial[axis]) * tx.const(
                steps[axis], dt)
            out = out + theta[n, d, tx.const(k - 1 - axis, "int64")] * coord
        return out
    shape = (theta.shape[0], tx.const(k, "int64"), *(tx.const(d, "int64") for d in dims))
    return te.compute(shape, body, name="compute")
