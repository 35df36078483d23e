"""Tensor intrinsics and `tensorize`: replace a block's computation by an implementation.

    TensorIntrin.register("tmm16", desc, impl)     # desc: what it computes; impl: how
    sch.tensorize(sch.blockize(ii), "tmm16")

The outer block's nest (loops + one block) must match the description's: the same loop
extents, iter types and bindings, and the same body up to a renaming of buffers and iter vars
where each index of ours is the description's plus an offset free of the inner iter vars. The
block's body becomes the implementation's, whose buffers are matched (`T.match_buffer`) to the
regions of our buffers at those offsets: TVM's result for the same steps.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..arith import subtract
from ..expr import BufferLoad, IntImm, PrimExpr, Var
from ..function import PrimFunc, free_vars
from ..functor import Mutator, fields_of, simplify, substitute
from ..stmt import (
    BlockRealize, Buffer, BufferRegion, BufferStore, For, MatchBufferRegion, Range, Stmt,
)
from .state import Ctx, ScheduleError
from .trace import BlockRV

_REGISTRY: dict[str, TensorIntrin] = {}


class TensorIntrin:
    """A named pair of prim_funcs: `desc` (the computation) and `impl` (its replacement)."""

    def __init__(self, desc: PrimFunc, impl: PrimFunc) -> None:
        if len(desc.buffer_map) != len(impl.buffer_map):
            raise ValueError(f"a tensor intrinsic's desc and impl take the same buffers; they "
                             f"take {len(desc.buffer_map)} and {len(impl.buffer_map)}")
        self.desc, self.impl = desc, impl

    @staticmethod
    def register(name: str, desc: PrimFunc, impl: PrimFunc, override: bool = False) -> None:
        if name in _REGISTRY and not override:
            raise ValueError(f"tensor intrinsic {name!r} is already registered "
                             f"(pass override=True to replace it)")
        _REGISTRY[name] = TensorIntrin(desc, impl)

    @staticmethod
    def get(name: str, allow_missing: bool = False) -> TensorIntrin | None:
        if name not in _REGISTRY:
            if allow_missing:
                return None
            raise ValueError(f"no tensor intrinsic named {name!r}; registered: "
                             f"{sorted(_REGISTRY)}")
        return _REGISTRY[name]


def _strip_root(func: PrimFunc) -> tuple[Stmt, tuple[Buffer, ...]]:
    body = func.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        return body.block.body, body.block.alloc_buffers
    return body, ()


def _nest(stmt: Stmt) -> tuple[list[For], Any]:
    loops = []
    while isinstance(stmt, For):
        loops.append(stmt)
        stmt = stmt.body
    return loops, stmt


class _Matcher:
    """Walks the description and our block side by side, mapping its vars and buffers."""

    def __init__(self, vmap: dict[Var, Var], name: str) -> None:
        self.vmap, self.name = vmap, name
        self.accesses: dict[Buffer, tuple[Buffer, list]] = {}

    def fail(self, why: str) -> ScheduleError:
        return ScheduleError(f"tensorize: block {self.name!r} does not match the intrinsic's "
                             f"description: {why}")

    def match(self, d: Any, o: Any) -> None:
        if isinstance(d, Var):
            if self.vmap.get(d, d) is not o:
                raise self.fail(f"{o} where the description has {d.name}")
            return
        if type(d) is not type(o):
            raise self.fail(f"{type(o).__name__} where it has {type(d).__name__}")
        if isinstance(d, (BufferLoad, BufferStore)):
            self._access(d, o)
            if isinstance(d, BufferStore):
                self.match(d.value, o.value)
            return
        if isinstance(d, tuple):
            if len(d) != len(o):
                raise self.fail("a different number of operands")
            for a, b in zip(d, o):
                self.match(a, b)
            return
        if not dataclasses.is_dataclass(d):
            if d != o:
                raise self.fail(f"{o!r} where it has {d!r}")
            return
        for f in fields_of(d):
            self.match(getattr(d, f), getattr(o, f))

    def _access(self, d: Any, o: Any) -> None:
        if d.buffer.dtype != o.buffer.dtype:
            raise self.fail(f"buffer {o.buffer.name!r} is {o.buffer.dtype}, the description's "
                            f"{d.buffer.name!r} {d.buffer.dtype}")
        mapped, pairs = self.accesses.setdefault(d.buffer, (o.buffer, []))
        if mapped is not o.buffer:
            raise self.fail(f"{o.buffer.name!r} and {mapped.name!r} stand for one buffer")
        if len(d.indices) != len(o.indices):
            raise self.fail(f"buffer {o.buffer.name!r} has {len(o.indices)} indices, the "
                            f"description's {d.buffer.name!r} {len(d.indices)}")
        pairs.append((substitute(d.indices, self.vmap), o.indices))


def _region(buf: Buffer, desc_buf: Buffer, pairs: list, inner: set, m: _Matcher
            ) -> BufferRegion:
    """Our buffer's region the description's buffer covers: offset + its shape, per dim."""
    offsets: list[PrimExpr | None] = [None] * len(desc_buf.shape)
    for d_idx, o_idx in pairs:
        for k, (a, b) in enumerate(zip(d_idx, o_idx)):
            off = simplify(subtract(b, a))
            if any(v in inner for v in free_vars(off)):
                raise m.fail(f"index {b} of {buf.name!r} is not the description's index "
                             f"{a} plus an offset")
            if offsets[k] is None:
                offsets[k] = off
    ranges = []
    for off, dim in zip(offsets, desc_buf.shape):
        dim = simplify(dim)  # the extent in the offset's dtype, as TVM prints the region
        ranges.append(Range(off, IntImm(off.dtype, dim.value) if isinstance(dim, IntImm) else dim))
    return BufferRegion(buf, tuple(ranges))


class _Fresh(Mutator):
    """A copy of the implementation with its own buffers and vars (one per application)."""

    def __init__(self, bufs: dict[Buffer, Buffer], vmap: dict[Var, Var]) -> None:
        self.bufs, self.vmap = bufs, vmap

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        return self.bufs.get(buf, buf)

    def visit_Var(self, v: Var) -> Any:
        return self.vmap.get(v, v)


def tensorize(ctx: Ctx, rv: BlockRV, intrin_name: str) -> tuple[Any, None]:
    intrin = TensorIntrin.get(intrin_name)
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    if br.block.init is not None:
        raise ScheduleError(f"tensorize: block {name!r} has an init; decompose_reduction "
                            f"first (the intrinsic's description has none)")
    desc_body, _ = _strip_root(intrin.desc)
    d_loops, d_block = _nest(desc_body)
    o_loops, o_block = _nest(br.block.body)
    vmap = _match_nests(d_loops, d_block, o_loops, o_block, name)
    m = _Matcher(vmap, name)
    m.match(d_block.block.body, o_block.block.body)
    inner = {iv.var for iv in o_block.block.iter_vars} | {lp.loop_var for lp in o_loops}
    desc_params = [b for _, b in intrin.desc.buffer_map]
    impl_params = [b for _, b in intrin.impl.buffer_map]
    impl_body, impl_allocs = _strip_root(intrin.impl)
    fresh_vars = {v: Var(v.name, v.dtype) for b in impl_params for e in (*b.shape, *b.strides)
                  for v in free_vars(e)}
    fresh_bufs = {b: dataclasses.replace(
        b, shape=tuple(substitute(b.shape, fresh_vars)),
        strides=tuple(substitute(b.strides, fresh_vars)), data=Var(b.name, "handle"))
        for b in impl_params}
    matches = []
    for d_buf, i_buf in zip(desc_params, impl_params):
        if d_buf not in m.accesses:
            raise m.fail(f"it never accesses the description's buffer {d_buf.name!r}")
        ours, pairs = m.accesses[d_buf]
        matches.append(MatchBufferRegion(fresh_bufs[i_buf], _region(ours, d_buf, pairs, inner, m)))
    new_body = _Fresh(fresh_bufs, fresh_vars).visit(impl_body)
    block = dataclasses.replace(br.block, body=new_body, match_buffers=tuple(matches),
                                alloc_buffers=br.block.alloc_buffers + impl_allocs)
    from . import tree

    return ctx.func.with_body(tree.replace(path, dataclasses.replace(br, block=block))), None


def _match_nests(d_loops: list[For], d_block: Any, o_loops: list[For], o_block: Any,
                 name: str) -> dict[Var, Var]:
    """Loop and iter var correspondence between the description's nest and ours."""
    if not isinstance(o_block, BlockRealize) or not isinstance(d_block, BlockRealize):
        raise ScheduleError(f"tensorize: block {name!r} must hold a loop nest over one block, "
                            f"as the description does")
    if len(d_loops) != len(o_loops):
        raise ScheduleError(f"tensorize: block {name!r} has {len(o_loops)} loops inside, the "
                            f"description {len(d_loops)}")
    vmap: dict[Var, Var] = {}
    for d, o in zip(d_loops, o_loops):
        de, oe = simplify(d.extent), simplify(o.extent)
        if getattr(de, "value", None) != getattr(oe, "value", -1):
            raise ScheduleError(f"tensorize: loop {o.loop_var.name!r} in block {name!r} has "
                                f"extent {oe}, the description's {de}")
        vmap[d.loop_var] = o.loop_var
    d_ivs, o_ivs = d_block.block.iter_vars, o_block.block.iter_vars
    if [iv.iter_type for iv in d_ivs] != [iv.iter_type for iv in o_ivs]:
        raise ScheduleError(f"tensorize: the iter vars of the block inside {name!r} differ in "
                            f"kind from the description's")
    from ...ir.structural import structural_equal  # ir sits above tir

    for d_iv, o_iv, d_val, o_val in zip(d_ivs, o_ivs, d_block.iter_values,
                                        o_block.iter_values):
        if not structural_equal(substitute(d_val, vmap), o_val):
            raise ScheduleError(f"tensorize: iter var {o_iv.var.name!r} inside {name!r} is "
                                f"bound to {o_val}, the description's to {d_val}")
        vmap[d_iv.var] = o_iv.var
    return vmap
