"""The CPU rule for convolutions over narrow maps: vectors run along the flattened, padded
image instead of along one output row.

The row rule (conv2d_schedule.py) puts one output row in a vector register: a 7-column map
(ResNet's last stage) fills 7 of 16 lanes, a 2-column one (CIFAR nets) 2. Here the padded input
is flattened, `xf[b, c, q] = xpad[b, c, q // Wp, q % Wp]`, and the output is computed at every
flat position `q = y * Wp + x`, including the `Wp - OW` columns per row that fall in the
padding:

    outflat[b, f, q] = sum_{c, ky, kx} w[f, c, ky, kx] * xf[b, c, q + ky * dh * Wp + kx * dw]

so a vector over consecutive `q` reads consecutive input (49 of 64 lanes useful at 7x7 with
pad 1, 4 of 16 at 2x2 where rows used 2 of 16). A copy then drops the padding columns:
`out[b, f, y, x] = outflat[b, f, y * Wp + x]`. A strided conv reads phase planes instead
(space-to-depth: plane (py, px) holds the padded image's rows py + k * sy and columns
px + k * sx), in which the taps of consecutive outputs are again consecutive: tap (ky, kx)
reads plane (ky % sy, kx % sx) at `q + (ky // sy) * Wq + kx // sx` (dilation folded into
ky, kx). The tile is the row rule's best one, 8
channels x 2 vectors, the window unrolled; each output still sums over (c, ky, kx) in order
from zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.dtype import bits as dtype_bits
from ..tir.functor import simplify
from .conv2d_schedule import MIN_PARALLEL, host_vector_bits, max_accumulators, pick_lanes

B = tx.BinaryOp


def conv2d_nchw_flat(data: te.Tensor, weight: te.Tensor, strides: tuple[int, int],
                     padding: tuple[int, ...], dilation: Any, groups: int, dt: str,
                     epilogue: Callable[..., tx.PrimExpr] | None = None) -> te.Tensor | None:
    """The flat-vector conv of an NCHW conv, or None when the row rule fits as well (wide
    rows), a shape is not static, or it is depthwise (no channels to share loads)."""
    dims = [simplify(d) for d in (*data.shape, *weight.shape)]
    if not all(isinstance(d, tx.IntImm) for d in dims):
        return None
    n, c, h, w, o, ci, kh, kw = (d.value for d in dims)  # type: ignore[union-attr]
    if groups != 1 and ci == 1:
        return None
    dh, dw = int(dilation[0]), int(dilation[1])
    sy, sx = strides
    hp, wp = h + padding[0] + padding[2], w + padding[1] + padding[3]
    oh, ow = (hp - dh * (kh - 1) - 1) // sy + 1, (wp - dw * (kw - 1) - 1) // sx + 1
    hq, wq = -(-hp // sy), -(-wp // sx)  # one phase plane (every sy-th row, sx-th column)
    lanes = max(1, host_vector_bits() // dtype_bits(dt))
    flat = oh * wq
    tile = 2 * lanes if flat > 2 * lanes else lanes  # NOTE: tiny maps: one vector
    length = -(-flat // tile) * tile
    row = _useful(ow, _row_lanes(ow, lanes))
    # NOTE: the two copies cost a pass over the input and the output: only worth it where
    # the row rule leaves most lanes idle (7 columns: 44% of lanes; 20 columns: 62%)
    if oh < 1 or ow < 1 or row >= 0.5 or _useful(oh * ow, length) < 1.25 * row:
        return None
    reach = (dh * (kh - 1) // sy) * wq + dw * (kw - 1) // sx  # the farthest tap, flat
    xf = _flat_input(data, padding, (sy, sx), (hq, wq), length + reach)
    rc, ry, rx = te.reduce_axis(ci, "rc"), te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")
    per_group = o // groups

    def body(b: Any, f: Any, q: Any) -> tx.PrimExpr:
        cin = rc if groups == 1 else f // per_group * ci + rc
        ty, tx_ = ry * dh, rx * dw  # the tap's offset in the padded image
        phase = (ty % sy) * sx + tx_ % sx
        v = xf[b, cin, phase, q + (ty // sy) * wq + tx_ // sx]
        return te.sum(_as(v, dt) * _as(weight[f, rc, ry, rx], dt), axis=[rc, ry, rx])

    out = te.compute((n, o, length), body, name="conv2d_nchw_flat")
    _flat_nest(out, n, o, length, tile, lanes, kh * kw)
    def finish(b: Any, f: Any, y: Any, x: Any) -> tx.PrimExpr:  # the epilogue rides along
        v = out[b, f, y * wq + x]
        return v if epilogue is None else epilogue(v, b, f, y, x)
    return te.compute((n, o, oh, ow), finish, name="conv2d_nchw")


def _useful(used: int, lanes_total: int) -> float:
    return used / lanes_total if lanes_total else 0.0


def _row_lanes(ow: int, lanes: int) -> int:
    """The lanes the row rule spends per output row (0: it would not vectorize)."""
    chosen = pick_lanes(ow, lanes)
    return -(-ow // chosen) * lanes if chosen else 0


def _flat_input(data: te.Tensor, padding: tuple[int, ...], strides: tuple[int, int],
                plane: tuple[int, int], length: int) -> te.Tensor:
    """xf[b, c, py * sx + px, q]: phase plane (py, px) of the zero-padded image, i.e. its rows
    py, py + sy, ... and columns px, px + sx, ..., flattened row by row (`plane` = rows,
    columns), then zeros up to `length`. With stride 1 there is one plane: the image."""
    h, w = (simplify(d).value for d in data.shape[2:])  # type: ignore[union-attr]
    (sy, sx), (hq, wq) = strides, plane

    def body(b: Any, ch: Any, phase: Any, q: Any) -> tx.PrimExpr:
        row = q // wq * sy + phase // sx - padding[0]
        col = q % wq * sx + phase % sx - padding[1]
        inside = tx.binop(B.AND, tx.binop(B.AND, row >= 0, row < h),
                          tx.binop(B.AND, col >= 0, col < w))
        inside = tx.binop(B.AND, inside, q < hq * wq)
        clamp_row = tx.binop(B.MIN, tx.binop(B.MAX, row, 0), h - 1)
        clamp_col = tx.binop(B.MIN, tx.binop(B.MAX, col, 0), w - 1)
        return te.if_then_else(inside, data[b, ch, clamp_row, clamp_col],
                               tx.const(0, data.dtype))
    return te.compute((*data.shape[:2], sy * sx, length), body, name="pad_flat")


def _flat_nest(out: te.Tensor, n: int, o: int, length: int, tile: int, lanes: int,
               window: int) -> None:
    """b, f.o, q.o | rc, ry, rx | f.i, q.i: up to 8 channels x 2 vectors of accumulators."""
    fw = next(ch for ch in (8, 4, 2, 1)
              if o % ch == 0 and ch * (tile // lanes) <= max_accumulators())
    b, f, q = (a.name for a in out.op.axis)
    rc, ry, rx = (a.name for a in out.op.reduce_axis)
    split = {q: tile, **({f: fw} if fw < o else {})}
    fo, fi = (f"{f}.o", f"{f}.i") if fw < o else (None, f)
    qo = f"{q}.o" if tile < length else None
    if qo is None:
        split.pop(q)
    qi = f"{q}.i" if qo else q
    outer = [(name, ext) for name, ext in ((b, n), (fo, o // fw), (qo, length // tile))
             if name is not None]
    kinds = {qi: "vectorized", fi: "unroll"}
    if window <= 25:
        kinds.update({ry: "unroll", rx: "unroll"})
    par = next((name for name, ext in outer if ext >= MIN_PARALLEL),
               max(outer, key=lambda s: s[1])[0])
    if dict(outer)[par] > 1:
        kinds[par] = "parallel"
    te.loop_nest(out, [name for name, _ in outer] + [rc, ry, rx, fi, qi], split, kinds)


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)
