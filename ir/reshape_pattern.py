"""`relax.analysis.has_reshape_pattern`: whether a prim_func only moves elements from one
buffer to another at the same row-major flat position (a reshape, however it is indexed).

The check is by evaluation: the single block's store and load positions are compared at every
point of its iteration domain (sampled when the domain is large), with each symbolic dim given
several values. Index expressions of reshapes mix `//` and `%` in ways an algebraic prover
needs special rules for; evaluation needs none.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, Iterator

from ..tir.expr import IntImm, PrimExpr
from ..tir.expr import Var as TirVar
from ..tir.function import PrimFunc
from ..tir.function import free_vars as prim_free_vars
from ..tir.interpreter import Interpreter
from .index_poly import provably_equal
from ..tir.stmt import Block, BlockRealize, BufferLoad, BufferStore, For, IterType, SeqStmt

_MAX_POINTS = 4096
_SYMBOLIC_TRIALS = (1, 2, 5)


def _single_block(stmt: Any) -> Block | None:
    """The one non-root block under `stmt` (through loops only), or None."""
    while True:
        if isinstance(stmt, For):
            stmt = stmt.body
        elif isinstance(stmt, BlockRealize):
            block = stmt.block
            if block.iter_vars or isinstance(block.body, BufferStore):
                return block
            stmt = block.body  # the root block
        else:
            return None


def _flat(indices: tuple[PrimExpr, ...], shape: tuple[PrimExpr, ...]) -> PrimExpr | int:
    flat: PrimExpr | int = 0
    for i, n in zip(indices, shape):
        flat = flat * n + i
    return flat


def _points(extents: list[int], rng: random.Random) -> Iterator[tuple[int, ...]]:
    total = 1
    for e in extents:
        total *= e
    if total <= _MAX_POINTS:
        yield from itertools.product(*(range(e) for e in extents))
        return
    for _ in range(_MAX_POINTS):
        yield tuple(rng.randrange(e) for e in extents)


def _same_positions(block: Block, store: BufferStore, load: BufferLoad, sizes: dict[TirVar, int],
                    rng: random.Random) -> bool:
    it = Interpreter()
    it.env.update(sizes)
    extents = [int(it.eval(iv.dom.extent)) for iv in block.iter_vars]
    if any(e <= 0 for e in extents):
        return False  # nothing is moved: TVM does not call that a reshape
    dst = _flat(store.indices, store.buffer.shape)
    src = _flat(load.indices, load.buffer.shape)
    for point in _points(extents, rng):
        for iv, v in zip(block.iter_vars, point):
            it.env[iv.var] = v + int(it.eval(iv.dom.min))
        if _eval(it, dst) != _eval(it, src):
            return False
    return True


def _eval(it: Interpreter, e: PrimExpr | int) -> int:
    return e if isinstance(e, int) else int(it.eval(e))


def has_reshape_pattern(func: PrimFunc) -> bool:
    """True when `func` is one spatial block storing `out[...] = in[...]` at equal flat
    positions for every iteration."""
    return reshape_source(func) is not None


def reshape_source(func: PrimFunc) -> Any:
    """The buffer a reshape-only `func` reads (None when it is not one)."""
    if isinstance(func.body, SeqStmt):
        return None
    block = _single_block(func.body)
    if block is None or block.init is not None or \
            any(iv.iter_type != IterType.SPATIAL for iv in block.iter_vars):
        return None
    store = block.body
    if not isinstance(store, BufferStore):
        return _ragged_source(block)
    if not isinstance(store.value, BufferLoad) or store.value.buffer is store.buffer:
        return None
    load = store.value
    iters = {iv.var for iv in block.iter_vars}
    symbolic = {v for e in (*store.buffer.shape, *load.buffer.shape, *store.indices,
                            *load.indices, *(iv.dom.extent for iv in block.iter_vars))
                if not isinstance(e, IntImm) for v in prim_free_vars(e) if v not in iters}
    rng = random.Random(0)
    for size in _SYMBOLIC_TRIALS:
        if not _same_positions(block, store, load, {v: size for v in symbolic}, rng):
            return None
        if not symbolic:
            break
    return load.buffer


def _ragged_source(outer: Block) -> Any:
    """A ragged reshape: a spatial block whose loops (of data-dependent extent) hold one
    block copying at equal flat positions, which must then agree as polynomials (the row
    offsets come from an index buffer, so evaluation has no values to try)."""
    inner = _single_block(outer.body)
    if inner is None or inner.init is not None or not isinstance(inner.body, BufferStore) or \
            any(iv.iter_type != IterType.SPATIAL for iv in inner.iter_vars):
        return None
    store = inner.body
    load = store.value
    if not isinstance(load, BufferLoad) or load.buffer is store.buffer:
        return None
    same = provably_equal(_flat(store.indices, store.buffer.shape),
                          _flat(load.indices, load.buffer.shape))
    return load.buffer if same else None
