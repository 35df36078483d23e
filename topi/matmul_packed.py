"""Matmuls reading the right operand from packed column panels: `B_pack[j // lanes, k, j % lanes]`
= `B[k, j]`, each panel (k x lanes) contiguous, so the register tile of the default rule
(topi/matmul_schedule.py) streams it from cache instead of striding over whole rows of B.

Weights bound at build time are packed once (`pack_panels`, by transforms/fuse_transpose_matmul);
any other large right operand is packed by a copy inside the kernel (`pack_in_kernel`), which
pays for itself when several row tiles read each panel.
"""

from __future__ import annotations

import numpy as np

from .. import te
from ..tir import expr as tx
from ..tir.dtype import bits as dtype_bits
from .conv2d_schedule import MIN_PARALLEL, host_vector_bits
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


def matmul_packed(a: te.Tensor, b_pack: te.Tensor, out_dtype: str | None = None) -> te.Tensor:
    """a (.., m, k) x B, B given as its panels `b_pack` (n // lanes, k, lanes): (.., m, n)."""
    dt = out_dtype or a.dtype
    panels, _, lanes_dim = b_pack.shape
    lanes = int(lanes_dim.value)  # type: ignore[union-attr]
    n = tx.const(int(panels.value) * lanes, a.shape[-1].dtype)  # type: ignore[union-attr]
    k = te.reduce_axis(a.shape[-1], "k")

    def body(*idx: tx.PrimExpr) -> tx.PrimExpr:
        *lead, j = idx
        av = a[(*lead, k)]
        bv = b_pack[j // lanes, k, j % lanes]  # NOTE: folded to (j.o, k, j.i) when lowered
        return te.sum(_as(av, dt) * _as(bv, dt), axis=k)

    out = te.compute((*a.shape[:-1], n), body, name="T_matmul")
    matmul_nest(out, lanes, b_shared=True)  # NOTE: a symbolic dim keeps TE's plain nest
    return out


def _as(v: tx.PrimExpr, dtype: str) -> tx.PrimExpr:
    return v if v.dtype == dtype else tx.Cast(dtype, v)
