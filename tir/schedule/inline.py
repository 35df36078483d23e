"""compute_inline and reverse_compute_inline: a block computing one intermediate buffer
disappears into its consumers (or a consumer into its producer).

Both check TVM's conditions first (an intermediate buffer written by one complete block, not
used opaquely, ...) and raise ScheduleError naming the block; the index algebra that lets a
consumer be folded into its producer is in inverse_index.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import constant_difference
from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..functor import Mutator, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, IterType, Stmt
from . import regions, tree
from .analysis import accesses, check_not_output, readers, writers
from .inverse_index import canonical, invert_load
from .state import Ctx, ScheduleError
from .trace import BlockRV


def single_store(br: BlockRealize, what: str, allow_init: bool = False) -> BufferStore:
    if br.block.init is not None and not allow_init:
        raise ScheduleError(f"{what}: block {br.block.name!r} is a reduction (it has an init)")
    if not isinstance(br.block.body, BufferStore):
        raise ScheduleError(f"{what}: block {br.block.name!r} must be one buffer store")
    if not allow_init and any(iv.iter_type is not IterType.SPATIAL
                              for iv in br.block.iter_vars):
        raise ScheduleError(f"{what}: block {br.block.name!r} has reduce iter vars")
    return br.block.body


class _InlineLoads(Mutator):
    """Replaces loads of `buf` by `value` with `params` bound to the load's indices, and
    rewrites the declared reads of every block whose loads it replaced."""

    def __init__(self, buf: Buffer, params: list[Var], value: PrimExpr,
                 producer_reads: list[Any]) -> None:
        self.buf, self.params, self.value = buf, params, value
        self.producer_reads = producer_reads

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        idx = self.visit(e.indices)
        if e.buffer is not self.buf:
            return e if idx is e.indices else BufferLoad(e.buffer, idx, e.span)
        return substitute(self.value, dict(zip(self.params, idx)))

    def visit_Block(self, b: Block) -> Block:
        new = self.generic_visit(b)
        if new is b:
            return b
        return regions.replace_read(new, self.buf, self.params, self.producer_reads)


class _DropAlloc(Mutator):
    def __init__(self, buf: Buffer) -> None:
        self.buf = buf

    def visit_Block(self, b: Block) -> Block:
        b = self.generic_visit(b)
        if not any(a is self.buf for a in b.alloc_buffers):
            return b
        return dataclasses.replace(b, alloc_buffers=tuple(a for a in b.alloc_buffers
                                                          if a is not self.buf))


def finish(ctx: Ctx, body: Stmt, dropped: Buffer) -> Any:
    """The function with `body`, without the allocation of `dropped`; a root block left with
    nothing to hold goes too (tvmlite's parser makes one only for allocations)."""
    body = _DropAlloc(dropped).visit(body)
    if (isinstance(body, BlockRealize) and body.block.name == "root" and not body.iter_values
            and not body.block.alloc_buffers and not body.block.match_buffers
            and not body.block.annotations and body.block.init is None):
        body = body.block.body
    return ctx.func.with_body(body)


def remove_nest(body: Stmt, block_name: str) -> Stmt:
    path = tree.block_path(body, block_name)
    assert path is not None
    return tree.replace(path[:tree.exclusive_top(path) + 1], None)


def _check_intermediate(ctx: Ctx, br: BlockRealize, buf: Buffer, what: str) -> None:
    check_not_output(ctx.func, buf, what, br.block.name)
    others = [p[-1].block.name for p in writers(ctx.func.body, buf) if p[-1] is not br]
    if others:
        raise ScheduleError(f"{what}: block {br.block.name!r} is not the only writer of "
                            f"{buf.name!r}; block {others[0]!r} writes it too")
    if regions.opaque_users(ctx.func.body, buf):
        raise ScheduleError(f"{what}: buffer {buf.name!r} of block {br.block.name!r} is "
                            f"accessed opaquely (by pointer or match_buffer)")


def compute_inline(ctx: Ctx, block_rv: BlockRV) -> tuple[Any, None]:
    what = "compute_inline"
    br = ctx.block(block_rv)
    store = single_store(br, what)
    if len({id(b) for b, _ in accesses(br.block)[1]}) != 1:
        raise ScheduleError(f"{what}: block {br.block.name!r} must write exactly one buffer")
    params = list(store.indices)
    own = {iv.var for iv in br.block.iter_vars}
    if not all(isinstance(v, Var) and v in own for v in params) or len(set(params)) != len(
            params):
        raise ScheduleError(f"{what}: block {br.block.name!r} must store at distinct iter "
                            f"vars, e.g. B[vi, vj]")
    if any(b is store.buffer for b, _ in accesses(br.block)[0]):
        raise ScheduleError(f"{what}: block {br.block.name!r} reads the buffer it writes")
    _check_intermediate(ctx, br, store.buffer, what)
    value = substitute(store.value, _unindexed(br, params, what))
    body = remove_nest(ctx.func.body, br.block.name)
    inliner = _InlineLoads(store.buffer, params, value,  # type: ignore[arg-type]
                           regions.block_reads(br.block))
    return finish(ctx, inliner.visit(body), store.buffer), None


def _unindexed(br: BlockRealize, params: list[Any], what: str) -> dict[Var, PrimExpr]:
    """Iter vars the store does not index: one of extent 1 is its start; another would make
    the block write one element several times, which cannot be inlined."""
    out: dict[Var, PrimExpr] = {}
    for iv in br.block.iter_vars:
        if any(iv.var is p for p in params):
            continue
        if not (isinstance(iv.dom.extent, IntImm) and iv.dom.extent.value == 1):
            raise ScheduleError(f"{what}: block {br.block.name!r} writes each element for "
                                f"several values of iter var {iv.var.name!r}")
        out[iv.var] = iv.dom.min
    return out


def _only_domain_guards(br: BlockRealize) -> bool:
    """Does the predicate only keep the iter vars in their domains (a split's guard)? The
    merged block's own guards do that job, so such a predicate can go."""
    def terms(e: PrimExpr) -> list[PrimExpr]:
        if isinstance(e, BinOp) and e.op is BinaryOp.AND:
            return terms(e.a) + terms(e.b)
        return [e]

    bounds = []
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if isinstance(iv.dom.min, IntImm) and isinstance(iv.dom.extent, IntImm):
            bounds.append((value, iv.dom.min.value, iv.dom.min.value + iv.dom.extent.value))
    for t in terms(br.predicate):
        if isinstance(t, IntImm) and t.value:
            continue
        if not (isinstance(t, BinOp) and isinstance(t.b, IntImm) and any(
                constant_difference(t.a, v) == 0 and (
                    (t.op is BinaryOp.LT and t.b.value == end)
                    or (t.op is BinaryOp.GE and t.b.value == lo))
                for v, lo, end in bounds)):
            return False
    return True


def _the_producer(ctx: Ctx, consumer: BlockRealize, what: str) -> tuple[Buffer, BlockRealize]:
    """The one buffer the consumer reads that a block writes, and that block."""
    loaded: list[Buffer] = []
    for b, _ in accesses(consumer.block)[0]:
        if not any(b is x for x in loaded):
            loaded.append(b)
    produced = [b for b in loaded
                if any(p[-1] is not consumer for p in writers(ctx.func.body, b))]
    name = consumer.block.name
    if len(produced) != 1:
        raise ScheduleError(f"{what}: block {name!r} must read exactly one buffer that "
                            f"another block produces; it reads {len(produced)}")
    buf = produced[0]
    check_not_output(ctx.func, buf, what, name)
    paths = writers(ctx.func.body, buf)
    if len(paths) != 1 or len({id(b) for b, _ in accesses(paths[0][-1].block)[1]}) != 1:
        raise ScheduleError(f"{what}: buffer {buf.name!r} read by block {name!r} must be "
                            f"written by one block that writes nothing else")
    others = [p[-1].block.name for p in readers(ctx.func.body, buf)
              if p[-1] is not consumer and p[-1] is not paths[0][-1]]
    if others:
        raise ScheduleError(f"{what}: block {name!r} is not the only reader of {buf.name!r}; "
                            f"block {others[0]!r} reads it too")
    if regions.opaque_users(ctx.func.body, buf):
        raise ScheduleError(f"{what}: buffer {buf.name!r} is accessed opaquely")
    return buf, paths[0][-1]  # type: ignore[return-value]


def _consumer_load(consumer: BlockRealize, buf: Buffer, what: str) -> tuple[PrimExpr, ...]:
    loads = [i for b, i in accesses(consumer.block)[0] if b is buf]
    if any(i != loads[0] for i in loads):
        raise ScheduleError(f"{what}: block {consumer.block.name!r} reads {buf.name!r} at "
                            f"different indices; it can only be inlined reading one element")
    return loads[0]


class _Retarget(Mutator):
    """Loads and stores of `buf` become accesses of `target` at `index(old indices)`."""

    def __init__(self, buf: Buffer, target: Buffer, index: Any) -> None:
        self.buf, self.target, self.index = buf, target, index

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        if e.buffer is not self.buf:
            return self.generic_visit(e)
        return BufferLoad(self.target, self.index(self.visit(e.indices)), e.span)

    def visit_BufferStore(self, s: BufferStore) -> BufferStore:
        if s.buffer is not self.buf:
            return self.generic_visit(s)
        return BufferStore(self.target, self.visit(s.value), self.index(self.visit(s.indices)))


def reverse_compute_inline(ctx: Ctx, block_rv: BlockRV) -> tuple[Any, None]:
    what = "reverse_compute_inline"
    consumer = ctx.block(block_rv)
    store = single_store(consumer, what)
    if not _only_domain_guards(consumer):
        raise ScheduleError(f"{what}: block {consumer.block.name!r} has a predicate beyond its "
                            f"domain; only a consumer running over its whole domain can be "
                            f"inlined")
    buf, producer = _the_producer(ctx, consumer, what)
    pstore = single_store(producer, what + " (producer)", allow_init=True)
    is_copy = isinstance(store.value, BufferLoad) and store.value.buffer is buf
    if producer.block.init is not None and not is_copy:
        raise ScheduleError(f"{what}: the producer of block {consumer.block.name!r}, block "
                            f"{producer.block.name!r}, is a reduction; only a consumer that "
                            f"copies its result can be inlined into it")
    load = _consumer_load(consumer, buf, what)
    inverse = invert_load(consumer, buf, load, what)

    def vmap_at(b_index: tuple[PrimExpr, ...]) -> dict[Var, PrimExpr]:
        return inverse.consumer_vars(b_index)

    def target_index(b_index: tuple[PrimExpr, ...]) -> tuple[PrimExpr, ...]:
        return tuple(substitute(i, vmap_at(b_index)) for i in store.indices)

    vmap = vmap_at(pstore.indices)
    if producer.block.init is not None:
        new_block = _Retarget(buf, store.buffer, target_index).visit(producer.block)
    else:
        value = _InlineLoads(buf, list(load), pstore.value, []).visit(store.value)  # type: ignore
        new_store = BufferStore(store.buffer, substitute(value, vmap), target_index(
            pstore.indices))
        new_block = dataclasses.replace(producer.block, body=new_store)
    new_block = _signature(new_block, producer.block, consumer, buf, vmap)
    pred = _predicate(producer, inverse.guards(pstore.indices))
    body = tree.replace(tree.block_path(ctx.func.body, producer.block.name),  # type: ignore
                        dataclasses.replace(producer, block=new_block, predicate=pred))
    body = remove_nest(body, consumer.block.name)
    return finish(ctx, body, buf), None


def _signature(new: Block, old: Block, consumer: BlockRealize, buf: Buffer,
               vmap: dict[Var, PrimExpr]) -> Block:
    """Declared reads / writes of the merged block: the producer's reads plus the consumer's
    other reads, and the consumer's write, over the producer's iter vars."""
    cblock = consumer.block
    if old.writes:
        writes = cblock.writes or (regions.point(cblock.body.buffer, cblock.body.indices),)
        new = dataclasses.replace(new, writes=tuple(substitute(w, vmap) for w in writes))
    if old.reads:
        extra = [substitute(r, vmap) for r in regions.block_reads(cblock) if r.buffer is not buf]
        new = dataclasses.replace(new, reads=tuple(regions.unique(list(old.reads) + extra)))
    return new


def _predicate(producer: BlockRealize, guards: list[PrimExpr]) -> PrimExpr:
    """The producer's predicate and the guards keeping it to what the consumer computed,
    written over the loop vars as TVM prints it."""
    binds = {iv.var: v for iv, v in zip(producer.block.iter_vars, producer.iter_values)}
    pred = producer.predicate
    for g in _merge_split_guards([_over_loops(g, binds) for g in guards]):
        pred = g if isinstance(pred, IntImm) and pred.value else BinOp(BinaryOp.AND, pred, g)
    return pred


def _over_loops(guard: PrimExpr, binds: dict[Var, PrimExpr]) -> BinOp:
    assert isinstance(guard, BinOp)
    return BinOp(guard.op, canonical(substitute(guard.a, binds)), guard.b)


def _merge_split_guards(guards: list[BinOp]) -> list[BinOp]:
    """`x // c < e1` next to `x % c < e2` says `x < (e1 - 1) * c + e2` (given the second),
    the form TVM's iter-map analysis gives a fused loop's guard."""
    def parts(g: BinOp, op: BinaryOp) -> tuple[Any, int, int] | None:
        a = g.a
        if g.op is BinaryOp.LT and isinstance(g.b, IntImm) and isinstance(a, BinOp) and \
                a.op is op and isinstance(a.b, IntImm):
            return a.a, a.b.value, g.b.value
        return None

    out = list(guards)
    for k, g in enumerate(guards):
        outer = parts(g, BinaryOp.FLOORDIV)
        if outer is None:
            continue
        for h in guards:
            inner = parts(h, BinaryOp.FLOORMOD)
            if inner is not None and inner[0] == outer[0] and inner[1] == outer[1]:
                x, c, e1 = outer
                out[k] = BinOp(BinaryOp.LT, x, IntImm(g.b.dtype, (e1 - 1) * c + inner[2]))
    return out
