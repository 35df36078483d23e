"""The default CPU rule of a kernel no other rule scheduled (elementwise chains, softmax,
layer norm, reductions over the last axes): its big computes run on every core.

Each compute keeps TE's loop order (spatial axes, then reduce axes); its outermost spatial
loop with at least MIN_PARALLEL iterations becomes a parallel loop, when the compute does
enough work to pay for the fork (PARALLEL_MIN_WORK loop iterations). A kernel in which some
compute already has a loop nest (a matmul or conv rule) is left as it is, and so are
computes with a symbolic extent. Each element is still computed by the same loop body, in
the same order: the results are bit-identical.
"""

from __future__ import annotations

import math

from .. import te
from ..te.prim_func import _topo
from .conv2d_schedule import MIN_PARALLEL, static_dims

# loop iterations of a compute below which it stays on one core (a fork and join costs a
# few microseconds: 64K float32 elements of an add take ~10)
PARALLEL_MIN_WORK = 1 << 16


def parallelize_plain(outs: list[te.Tensor]) -> None:
    """Gives the computes of the kernel computing `outs` their parallel loop (see above)."""
    computes = [t for t in _topo(outs) if isinstance(t.op, te.ComputeOp)]
    if any(t.op.nest is not None for t in computes):
        return
    for t in computes:
        dims = static_dims(t)
        if dims is None or math.prod(dims) < PARALLEL_MIN_WORK:
            continue
        names = [a.name for a in (*t.op.axis, *t.op.reduce_axis)]
        par = next((name for name, ext in zip(names, dims[:len(t.op.axis)])
                    if ext >= MIN_PARALLEL), None)
        if par is not None:
            te.loop_nest(t, names, {}, {par: "parallel"})
