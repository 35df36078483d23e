"""Matmuls reading the right operand from packed column panels: `B_pack[j // lanes, k, j % lanes]`
= `B[k, j]`, each panel (k x lanes) contiguous, so the register tile of the default rule
(topi/matmul_schedule.py) streams it from cache instead of striding over whole rows of B.

Weights bound at build time are packed once (`pack_panels`, by transforms/fuse_transpose_matmul);
any other large right operand is packed by a copy inside the kernel (`pack_in_kernel`), which
pays for itself when several row tiles read each panel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import te
from ..tir import expr as tx
from ..tir.dtype import bits as dtype_bits
from ..tir.functor import simplify
from .conv2d_schedule import MIN_PARALLEL, host_vector_bits
from .epilogue import apply_epilogue
from .matmul_schedule import default_tile, matmul_nest, pick_lanes

# a right operand smaller than this stays where it is: its panels stay in L1/L2 unpacked
PACK_MIN_BYTES = 128 * 1024


def panel_lanes(n: int, dtype: str) -> int:
    """The width of the panels for a row of `n` columns (the rule's tile width), or 0 when
    the row does not vectorize."""
    return pick_lanes(n, max(1, host_vector_bits() // dtype_bits(dtype)))


def pack_panels(b: np.ndarray, lanes: int, transposed: bool = False) -> np.ndarray:
    """`b` (k, n) -- or (n, k) when `transposed` -- as panels (n // lanes, k, lanes)."""
    bt = b.T if transposed else b
    k, n = bt.shape
    return np.ascontiguousarray(bt.reshape(k, n // lanes, lanes).transpose(1, 0, 2))


def should_pack(m: int, n: int, k: int, dtype: str) -> bool:
    """Whether a matmul with these static dims reads a copy packed in the kernel: B is big,
    at least two row tiles reuse each of its panels, and the panels are narrow slices of
    B's rows (at least 4 of them: the rows of a panel lie far apart)."""
    tile = default_tile((m, n, k), dtype)
    return (tile is not None and m >= 2 * tile["rows"] and n >= 4 * tile["lanes"]
            and k * n * dtype_bits(dtype) // 8 >= PACK_MIN_BYTES)


def pack_in_kernel(b: te.Tensor, lanes: int) -> te.Tensor:
    """The packed panels of a 2-D `b`, as a parallel copy inside the kernel."""
    k, n = (int(d.value) for d in b.shape)  # type: ignore[union-attr]
    dt = b.shape[0].dtype
    packed = te.compute((tx.const(n // lanes, dt), tx.const(k, dt), tx.const(lanes, dt)),
                        lambda p, r, c: b[r, p * lanes + c], name="B_pack")
    p, r, c = (a.name for a in packed.op.axis)
    te.loop_nest(packed, [p, r, c], {}, {p if n // lanes >= MIN_PARALLEL else r: "parallel",
                                         c: "vectorized"})
    return packed


def matmul_packed(a: te.Tensor, b_pack: te.Tensor, bias: te.Tensor | None = None,
                  out_dtype: str | None = None) -> te.Tensor:
    """a (.., m, k) x B (+ bias (n,)), B given as its panels `b_pack` (n // lanes, k, lanes):
    (.., m, n). The bias is added to each register tile once its reduction is done.
    When the rows allow only a thin register tile (127 rows: tiles of one row, a quarter of
    the FMA throughput), the rows but the last m % 8 are computed with 8-row tiles, the rest
    with one tile of their own, and both are copied into the output (a pass over the output,
    a few percent of the matmul's time)."""
    dt = out_dtype or a.dtype
    m = simplify(a.shape[-2])
    if isinstance(m, tx.IntImm) and m.value > 8:
        n = int(b_pack.shape[0].value) * int(b_pack.shape[2].value)  # type: ignore[union-attr]
        tile = default_tile((m.value, n, 1), dt, int(b_pack.shape[2].value))  # type: ignore
        if tile is not None and tile["rows"] < TAIL_MIN_ROWS:
            return _with_row_tail(a, b_pack, m.value - m.value % 8, dt, bias)
    return _packed_rows(a, b_pack, 0, a.shape[-2], dt, bias)


TAIL_MIN_ROWS = 4  # a register tile of fewer rows: the rows split into 8-row tiles and a tail


def _packed_rows(a: te.Tensor, b_pack: te.Tensor, first: int, count: Any, dt: str,
                 bias: te.Tensor | None) -> te.Tensor:
    """Rows [first, first + count) of `a @ B`, scheduled by the rule."""
    panels, _, lanes_dim = b_pack.shape
    lanes = int(lanes_dim.value)  # type: ignore[union-attr]
    n = tx.const(int(panels.value) * lanes, a.shape[-1].dtype)  # type: ignore[union-attr]
    k = te.reduce_axis(a.shape[-1], "k")

    def body(*idx: tx.PrimExpr) -> tx.PrimExpr:
        *lead, i, j = idx
        av = a[(*lead, i + first if first else i, k)]
        bv = b_pack[j // lanes, k, j % lanes]  # NOTE: folded to (j.o, k, j.i) when lowered
        return te.sum(_as(av, dt) * _as(bv, dt), axis=k)

    rows = tx.const(count, a.shape[-2].dtype) if isinstance(count, int) else count
    out = te.compute((*a.shape[:-2], rows, n), body, name="T_matmul")
    matmul_nest(out, lanes, b_shared=True)  # NOTE: a symbolic dim keeps TE's plain nest
    if bias is None:
        return out
    return apply_epilogue(out, lambda acc, *axes: acc + _as(bias[axes[-1]], dt))


def _with_row_tail(a: te.Tensor, b_pack: te.Tensor, main: int, dt: str,
                   bias: te.Tensor | None) -> te.Tensor:
    m = int(a.shape[-2].value)  # type: ignore[union-attr]
    head = _packed_rows(a, b_pack, 0, main, dt, bias)
    tail = _packed_rows(a, b_pack, main, m - main, dt, bias)
    top, zero = tx.const(main - 1, head.shape[-2].dtype), tx.const(0, head.shape[-2].dtype)

    def body(*idx: tx.PrimExpr) -> tx.PrimExpr:
        *lead, i, j = idx
        # NOTE: both reads clamped in bounds; the lazy select reads just one
        up = head[(*lead, tx.binop(tx.BinaryOp.MIN, i, top), j)]
        down = tail[(*lead, tx.binop(tx.BinaryOp.MAX, i - main, zero), j)]
        return te.if_then_else(i < main, up, down)

    out = te.compute((*a.shape[:-1], head.shape[-1]), body, name="T_matmul")
    names = [ax.name for ax in out.op.axis]
    dims = [int(d.value) for d in out.shape]  # type: ignore[union-attr]
    par = next((nm for nm, d in zip(names, dims) if d >= MIN_PARALLEL), None)
    te.loop_nest(out, names, {}, {par: "parallel"} if par is not None else {})
    return out


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)
