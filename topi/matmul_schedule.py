"""The default CPU schedule rule of a matmul whose right operand is read along its rows
(`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`): a register-blocked micro-kernel.

A rule over the compute's structure (static shapes, any batch dims and dtype), applied when
topi builds the compute, as `te.loop_nest`:

    batch.., i.o          rows of tiles; the first loop with enough iterations runs in parallel
      k.o                 a block of the reduction, so the block of B it reads stays in cache
        j.o               columns of tiles
          k.i             the rest of the reduction
            i.i, j.i      the register tile: `rows` x `lanes` accumulators, j vectorized

Each broadcast A[i, k] feeds `lanes / register width` FMAs and each vector of B's row k feeds
`rows` of them. On the Zen 5 machine of bench/README.md 8 rows x 32 lanes (16 zmm
accumulators) ran 250-420 GFLOP/s on two cores for BERT's (128, 768) x (768, 3072), where the
unblocked `i, k, j` nest ran ~55; without the k block the long reductions (K = 3072) fell to
~130. A single row (a matrix-vector product) splits the columns over the cores instead.
Each output still sums over k in order, from zero (the init is its own block).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from .. import te
from ..tir.dtype import bits as dtype_bits
from .conv2d_schedule import MIN_PARALLEL, host_vector_bits, max_accumulators, static_dims
from .conv2d_schedule import pick_lanes as conv_pick_lanes

K_BLOCK = 256  # reduction steps per block: a (256 x N) block of B is reused by every row tile

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


def matmul_nest(out: te.Tensor) -> bool:
    """Sets the loop nest of `out` (axes: batch.., i, j; one reduce axis k). Returns False,
    leaving the compute as it is, when a shape is not static or the row does not vectorize."""
    dims = static_dims(out)
    if dims is None or len(out.op.axis) < 2 or len(out.op.reduce_axis) != 1:
        return False
    *batch_dims, m, n, k_ext = dims
    tile = default_tile(dims, out.dtype)
    if tile is None:
        return False
    rows, lanes, kc = tile["rows"], tile["lanes"], tile["kc"]
    if _SEEN.get() is not None:
        _SEEN.get().append(tuple(dims))
    tuned = _KNOBS.get().get(tuple(dims))
    if tuned is not None:
        rows, lanes, kc = tuned["rows"], tuned["lanes"], tuned["kc"]
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
    order = [name for name in (*batch, io, ko, jo, ki, ii, ji) if name is not None]
    kinds = {ji: "vectorized"}
    if ii is not None:
        kinds[ii] = "unroll"
    spatial = [name for name in (*batch, io) if name is not None]
    if jo is not None and ko is None:  # no fork per k block
        spatial.append(jo)
    par = next((name for name in spatial if extent[name] >= MIN_PARALLEL),
               max(spatial, key=extent.__getitem__, default=None))
    if par is not None and extent[par] > 1:
        kinds[par] = "parallel"
    te.loop_nest(out, order, split, kinds)
    return True


def default_tile(dims: list[int] | tuple, dtype: str) -> dict | None:
    """The rule's tile of a matmul (dims: batch.., m, n, k): {"rows", "lanes", "kc"}, or None
    when the row does not vectorize."""
    m, n, k_ext = dims[-3:]
    register = max(1, host_vector_bits() // dtype_bits(dtype))
    lanes = pick_lanes(n, register)
    if not lanes:
        return None
    regs = -(-lanes // register)
    rows = next(r for r in (8, 4, 2, 1) if m % r == 0 and r * regs <= max_accumulators())
    # a matrix-vector product reads B once whatever the order: no k block, columns in parallel
    kc = k_ext if m == 1 else pick_k_block(k_ext)
    return {"rows": rows, "lanes": lanes, "kc": kc}


def pick_k_block(k_ext: int) -> int:
    """The largest divisor of the reduction up to K_BLOCK, at least 32 steps, else all of it."""
    if k_ext <= K_BLOCK:
        return k_ext
    return next((d for d in range(K_BLOCK, 31, -1) if k_ext % d == 0), k_ext)


def pick_lanes(n: int, register: int) -> int:
    """Columns of the tile: two registers when they divide the row, else one, else the
    largest divisor of the row that fills at least 4 lanes, else 0 (no vector)."""
    for lanes in (2 * register, register):
        if n % lanes == 0:
            return lanes
    return conv_pick_lanes(n, register)
