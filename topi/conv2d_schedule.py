"""The default CPU schedule rule of an NCHW conv2d: a register-blocked micro-kernel, in parallel.

A rule over the compute's structure (static shapes, any kernel size, stride, dilation, group
count or dtype), applied when topi builds the compute, as `te.loop_nest` (te.tensor.LoopNest):

    b, f.o, y.o, x.o      spatial tiles; the first with enough iterations runs in parallel
      rc, ry, rx          the reduction, the window unrolled
        y.i, f.i, x.i     the register tile: `rows x channels` vectors of `lanes` columns

The tile is at most 16 accumulators (8 without AVX-512) of one vector register each, held
across the whole reduction: each input vector feeds `channels` FMAs with broadcast weights,
each broadcast `rows` FMAs. More accumulators, or rows split over several registers, spill.
On the Zen 5 machine of bench/README.md a 3x3 conv runs at 230-260 GFLOP/s per core with
2 rows x 8 channels x 16 lanes, 190-220 with 1 x 16 x 16, ~45 with 1 x 16 x 28 lanes.
Strided convolutions read a phase-split copy of the input (`column_reader`), so their vectors
are contiguous. Each output still sums over (rc, ry, rx) in the naive order, from zero (the
init is its own block).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm

from .. import te
from ..tir import expr as tx
from ..tir.dtype import bits as dtype_bits
from ..tir.functor import simplify

MAX_LANES = 16  # of float32 in one AVX-512 register
MIN_PARALLEL = 4  # iterations a loop needs to be the parallel one (2 cores, some balance)


ColumnReader = Callable[[Any, Any, Any, Any, Any], tx.PrimExpr]


def column_reader(x: te.Tensor, stride: int) -> tuple[ColumnReader, bool]:
    """`read(b, c, row, col, offset)` = x[b, c, row, col * stride + offset], and whether a
    vector over `col` reads contiguous memory. For a stride above 1 over a static width it
    reads a phase-split copy, xq[b, c, row, phase, j] = x[b, c, row, j * stride + phase],
    in which consecutive output columns are adjacent (a strided row is a gather otherwise).
    The copy runs in parallel; even a depthwise conv, which reads each input only 9 times,
    gains from it (MobileNetV2's 96-channel stride-2 layer: 0.26 ms naive, 0.18 vectorized
    over the copy; 144 channels: 0.14 and 0.065)."""
    width = simplify(x.shape[3])
    if stride == 1 or not isinstance(width, tx.IntImm):
        return (lambda b, c, r, col, off: x[b, c, r, col * stride + off]), stride == 1
    last = width.value - 1
    xq = te.compute((*x.shape[:3], stride, -(-width.value // stride)),
                    lambda b, c, r, ph, j: x[b, c, r, tx.binop(tx.BinaryOp.MIN,
                                                               j * stride + ph, last)],
                    name="pad_phase")  # NOTE: min clamps the tail no output column reads
    parallel_copy(xq)
    return (lambda b, c, r, col, off: xq[b, c, r, off % stride, col + off // stride]), True


def parallel_copy(t: te.Tensor) -> te.Tensor:
    """Runs an elementwise copy (the conv's padded or phase-split input) on both cores: its
    outermost axis with enough iterations becomes a parallel loop. Left alone when a shape
    is not static."""
    dims = static_dims(t)
    if dims is None or t.op.reduce_axis:
        return t
    names = [a.name for a in t.op.axis]
    par = next((n for n, ext in zip(names, dims) if ext >= MIN_PARALLEL), None)
    if par is not None:
        te.loop_nest(t, names, {}, {par: "parallel"})
    return t


def static_dims(t: te.Tensor) -> list[int] | None:
    """The compute's spatial then reduce extents, or None when one is not a constant."""
    dims = [simplify(d) for d in (*t.shape, *(a.dom.extent for a in t.op.reduce_axis))]
    if all(isinstance(d, tx.IntImm) for d in dims):
        return [d.value for d in dims]  # type: ignore[union-attr]
    return None


def pick_lanes(width: int, max_lanes: int = MAX_LANES) -> int:
    """Columns per vector: the whole row when it fits a register, else the largest divisor
    of the row that does (at least 4), else the whole row when it fits 4 registers (a slower
    tile, still far from scalar code), else 0: no vector."""
    if width <= max_lanes:
        return width
    best = max(d for d in range(1, max_lanes + 1) if width % d == 0)
    if best >= min(4, max_lanes):
        return best
    return width if width <= 4 * max_lanes else 0


@functools.cache
def host_vector_bits() -> int:
    """The width of the vector registers of the CPU kernels are compiled for (the host)."""
    features = llvm.get_host_cpu_features()
    return 512 if features.get("avx512f") else 256 if features.get("avx") else 128


def max_accumulators() -> int:
    """Half the vector registers (32 with AVX-512, else 16): the rest hold the loaded inputs
    and the broadcast weights."""
    return 16 if host_vector_bits() == 512 else 8


def pick_tile(channels: int, rows: int, lanes: int = MAX_LANES, max_lanes: int = MAX_LANES,
              depthwise: bool = False) -> tuple[int, int]:
    """(output channels, output rows) of the register tile: two rows when they divide the
    output (each broadcast weight then feeds two FMAs: 8 x 2 x 16 lanes ran 230-260 GFLOP/s
    per core where 16 x 1 ran 190-220), and as many channels as the accumulators allow
    (a power of two dividing `channels`). A depthwise conv's channels share nothing: its
    tile is up to 8 rows of one channel (unrolled, adjacent rows share their input loads;
    1.8x faster than 8 x 2)."""
    regs = -(-lanes // max_lanes)
    if depthwise:
        return 1, next(r for r in (8, 4, 2, 1)
                       if rows % r == 0 and r * regs <= max_accumulators())
    yr = 2 if rows % 2 == 0 else 1
    fw = next(c for c in (16, 8, 4, 2, 1)
              if channels % c == 0 and c * yr * regs <= max_accumulators())
    return fw, yr


def conv2d_nchw_nest(out: te.Tensor, contiguous_rows: bool = True, depthwise: bool = False
                     ) -> bool:
    """Sets the loop nest of `out` (te conv2d_nchw: axes b, f, y, x; reduce rc, ry, rx;
    `contiguous_rows`: whether its input rows are read contiguously). Returns False,
    leaving the compute as it is, when the shapes are not static, no row width vectorizes
    well, or it is a depthwise conv reading strided rows (a symbolic width: gathers)."""
    dims = static_dims(out)
    if dims is None or len(dims) != 7 or (depthwise and not contiguous_rows):
        return False
    n, o, oh, ow, _, kh, kw = dims
    max_lanes = max(1, host_vector_bits() // dtype_bits(out.dtype))  # accumulators' type
    xw = pick_lanes(ow, max_lanes)
    if not xw:
        return False
    fw, yr = pick_tile(o, oh, xw, max_lanes, depthwise)
    b, f, y, x = (a.name for a in out.op.axis)
    rc, ry, rx = (a.name for a in out.op.reduce_axis)
    # axes in b, f, y, x order, so the outer loops and the tile (rows, channels, lanes) are too
    outer, tile, split = split_axes([(f, fw, o), (y, yr, oh), (x, xw, ow)])
    outer.insert(0, (b, n))
    tile.sort(key=lambda t: (t.partition(".")[0] != y, t.partition(".")[0] == x))
    kinds = {tile[-1]: "vectorized", **{i: "unroll" for i in tile[:-1]}}
    if kh * kw <= 25 and contiguous_rows:  # NOTE: gathers (strided rows) unrolled: 3x slower
        kinds.update({ry: "unroll", rx: "unroll"})
    par = next((name for name, ext in outer if ext >= MIN_PARALLEL),
               max(outer, key=lambda s: s[1])[0])
    if dict(outer)[par] > 1:
        kinds[par] = "parallel"
    te.loop_nest(out, [name for name, _ in outer] + [rc, ry, rx] + tile, split, kinds)
    return True


def split_axes(axes: list[tuple[str, int, int]]
               ) -> tuple[list[tuple[str, int]], list[str], dict[str, int]]:
    """(name, tile size, extent) per axis -> the outer loops (name, extent), the tile loops
    and the splits: a tile of the whole axis keeps it inside, a tile of 1 outside."""
    outer: list[tuple[str, int]] = []
    tile: list[str] = []
    split: dict[str, int] = {}
    for name, size, ext in axes:
        if size == ext:
            tile.append(name)
        elif size == 1:
            outer.append((name, ext))
        else:
            split[name] = size
            outer.append((f"{name}.o", ext // size))
            tile.append(f"{name}.i")
    return outer, tile, split
