"""The default CPU schedule rule of a matmul whose right operand is read along its rows
(`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`): a register-blocked micro-kernel.

A rule over the compute's structure (static shapes, any batch dims and dtype), applied when
topi builds the compute, as `te.loop_nest`:

    batch.., j.o          column panels of B; the first loop with enough iterations runs in
      i.o                 parallel; the panel (k x lanes) is reused by every row tile
        k                 the whole reduction (a tuned `kc` splits it, inside the tile)
          i.i, j.i        the register tile: `rows` x `lanes` accumulators, j vectorized

The tile accumulates in a local buffer (te.with_epilogue's accumulator), which LLVM keeps in
registers across the reduction; accumulating in the output itself, it loaded and stored the
tile at every k step (LLVM could not tell the rows of the output apart). Each broadcast
A[i, k] feeds `lanes / register width` FMAs and each vector of B's row k feeds `rows` of them.
A panel read from a row-major B walks memory by whole rows of B (a 4 KiB multiple for BERT's
3072 columns: every row of the panel in the same L1 set); large B are read from panels
packed contiguously (`B_pack[j.o, k, j.i]`, topi/matmul_packed.py): weights once at build
time, other operands by a copy inside the kernel. On the Xeon (AVX-512) of bench/README.md,
one core, BERT's (128, 768) x (768, 3072): 0.26x numpy's speed with the tile in memory, 0.5x
with it in registers, 1.1-1.5x with the panels packed.
A single row (a matrix-vector product) splits the columns over the cores.
Each output still sums over k in order, from zero (the init is its own block).
"""

from __future__ import annotations

import contextlib
import math
import contextvars
from collections.abc import Iterator

from .. import te
from ..tir.dtype import bits as dtype_bits
from .conv2d_schedule import MIN_PARALLEL, host_vector_bits, max_accumulators, static_dims
from .conv2d_schedule import pick_lanes as conv_pick_lanes

A_RESIDENT_BYTES = 1 << 20  # of A the panel loop re-reads from L2 (2 MiB per core here)

# tuned knobs per workload (dims tuple -> {"rows", "lanes", "kc"}); empty: the default rule
_KNOBS: contextvars.ContextVar[dict] = contextvars.ContextVar("matmul_knobs", default={})
# workloads seen while the context collects them (meta_schedule.relax_integration's task extraction)
_SEEN: contextvars.ContextVar[list | None] = contextvars.ContextVar("matmul_seen", default=None)


@contextlib.contextmanager
def matmul_knobs(knobs: dict, seen: list | None = None) -> Iterator[None]:
    """Inside, matmuls whose dims are keys of `knobs` use those tile sizes; `seen` collects
    the dims of every matmul built (the tuner's tasks)."""
    tok, tok_seen = _KNOBS.set(dict(knobs)), _SEEN.set(seen)
    try:
        yield
    finally:
        _KNOBS.reset(tok)
        _SEEN.reset(tok_seen)


def matmul_nest(out: te.Tensor, lanes: int | None = None, b_shared: bool = False) -> bool:
    """Sets the loop nest of `out` (axes: batch.., i, j; one reduce axis k). Returns False,
    leaving the compute as it is, when a shape is not static or the row does not vectorize.
    `lanes`: the width of the packed panels `out` reads (fixed, not tunable). `b_shared`: B
    has no batch dims, so the column panels go outermost and every batch reuses each one."""
    dims = static_dims(out)
    if dims is None or len(out.op.axis) < 2 or len(out.op.reduce_axis) != 1:
        return False
    *batch_dims, m, n, k_ext = dims
    tile = default_tile(dims, out.dtype, lanes)
    if tile is None:
        return False
    if _SEEN.get() is not None:
        _SEEN.get().append(tuple(dims))
    tuned = _KNOBS.get().get(tuple(dims))
    if tuned is not None and (lanes is None or tuned["lanes"] == lanes):
        tile = tuned
    rows, lanes, kc = tile["rows"], tile["lanes"], tile["kc"]
    *batch, i, j = (a.name for a in out.op.axis)
    k = out.op.reduce_axis[0].name
    split: dict[str, int] = {}
    extent: dict[str, int] = dict(zip(batch, batch_dims))

    def parts(name: str, size: int, ext: int) -> tuple[str | None, str | None]:
        if size == ext:
            return None, name
        if size == 1:
            extent[name] = ext
            return name, None
        split[name] = size
        extent[f"{name}.o"] = ext // size
        return f"{name}.o", f"{name}.i"

    (io, ii), (jo, ji), (ko, ki) = parts(i, rows, m), parts(j, lanes, n), parts(k, kc, k_ext)
    # NOTE: all of A is re-read for each column panel: while it stays in L2, the panels go
    # outermost (each read once); a bigger A goes by batches instead (each a block of rows
    # that stays in L2 while all panels stream past it: BERT's batch 8)
    a_bytes = math.prod(batch_dims) * m * k_ext * dtype_bits(out.dtype) // 8
    panels_first = b_shared and (not batch or a_bytes <= A_RESIDENT_BYTES)
    spatial = [name for name in ((jo, *batch, io) if panels_first else (*batch, jo, io))
               if name is not None]
    order = [*spatial, *(name for name in (ko, ki, ii, ji) if name is not None)]
    kinds = {ji: "vectorized"}
    if ii is not None:
        kinds[ii] = "unroll"
    par = next((name for name in spatial if extent[name] >= MIN_PARALLEL),
               max(spatial, key=extent.__getitem__, default=None))
    if par is not None and extent[par] > 1:
        kinds[par] = "parallel"
    te.loop_nest(out, order, split, kinds)
    te.with_epilogue(out, lambda acc, *axes: acc)  # the tile accumulates in registers
    return True


def default_tile(dims: list[int] | tuple, dtype: str, lanes: int | None = None
                 ) -> dict | None:
    """The rule's tile of a matmul (dims: batch.., m, n, k): {"rows", "lanes", "kc"}, or None
    when the row does not vectorize. `lanes` given: the width of packed panels."""
    m, n, k_ext = dims[-3:]
    register = max(1, host_vector_bits() // dtype_bits(dtype))
    lanes = lanes or pick_lanes(n, register)
    if not lanes:
        return None
    regs = -(-lanes // register)
    # the most rows up to 8 dividing m (odd counts too: 7 rows of 126 beat 2 rows of 126)
    rows = next(r for r in range(8, 0, -1) if m % r == 0 and r * regs <= max_accumulators())
    return {"rows": rows, "lanes": lanes, "kc": k_ext}


def pick_lanes(n: int, register: int) -> int:
    """Columns of the tile: two registers when they divide the row, else one, else the
    largest divisor of the row that fills at least 4 lanes, else 0 (no vector)."""
    for lanes in (2 * register, register):
        if n % lanes == 0:
            return lanes
    return conv_pick_lanes(n, register)
