"""`pad_einsum`: an einsum-like block's iteration space rounded up to multiples of `padding`,
as TVM does it for tensor cores:

    for i, j, k in T.grid(128, 127, 127): C_shared[i, j] += A_shared[i, k] * B_shared[k, j]
        pad_einsum(C_shared, [32, 32, 32])
    for i, j, k in T.grid(128, 128, 128): C_shared_padded[i, j] += A_sh..._padded[i, k] * ...

Each intermediate buffer the block touches whose dims grow becomes "<name>_padded"; the block
producing one it reads fills the padding with zeros (`T.if_then_else(j < 127, A[i, j], 0)`),
and the blocks reading one it writes read the padded buffer, over their own (unpadded) range.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..expr import BinaryOp, BinOp, Call, IntImm, PrimExpr, Var, const
from ..functor import simplify
from ..stmt import BlockRealize, Buffer, BufferStore, For, Stmt
from . import tree
from .analysis import accesses, writers
from .buffer_prims import _SwapBuffer
from .state import Ctx, ScheduleError
from .trace import BlockRV


def _trivial_extents(br: BlockRealize, path: tree.Path, what: str) -> dict[Var, int]:
    """Iter var -> constant extent, for a block binding each iter var to its own loop."""
    loops = {s.loop_var: s for s in path if isinstance(s, For)}
    out = {}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        lp = loops.get(value) if isinstance(value, Var) else None
        ext = simplify(iv.dom.extent)
        if lp is None or not isinstance(ext, IntImm) or simplify(lp.extent) != ext:
            raise ScheduleError(f"{what}: block {br.block.name!r} must bind iter var "
                                f"{iv.var.name!r} to a loop of its whole extent")
        out[iv.var] = ext.value
    return out


def _grow(body: Stmt, name: str, new_ext: dict[Var, int]) -> Stmt:
    """Block `name`'s iter vars in `new_ext` (and the loops binding them) get new extents."""
    path = tree.block_path(body, name)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    ivs = tuple(dataclasses.replace(iv, dom=dataclasses.replace(
        iv.dom, extent=IntImm(iv.dom.extent.dtype, new_ext[iv.var])))
        if iv.var in new_ext else iv for iv in br.block.iter_vars)
    node: Stmt = dataclasses.replace(br, block=dataclasses.replace(br.block, iter_vars=ivs))
    grow_loops = {v: new_ext[iv.var] for iv, v in zip(br.block.iter_vars, br.iter_values)
                  if iv.var in new_ext}
    for k in range(len(path) - 2, -1, -1):
        parent = path[k]
        if isinstance(parent, For) and parent.loop_var in grow_loops:
            parent = dataclasses.replace(
                parent, extent=IntImm(parent.extent.dtype, grow_loops[parent.loop_var]))
        node = tree._replace_child(parent, path[k + 1], node)  # type: ignore[assignment]
    return node


def pad_einsum(ctx: Ctx, rv: BlockRV, padding: list[int]) -> tuple[Any, None]:
    what = "pad_einsum"
    path = ctx.block_path(rv)
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    name = br.block.name
    if len(padding) != len(br.block.iter_vars) or any(int(p) <= 0 for p in padding):
        raise ScheduleError(f"{what}: block {name!r} has {len(br.block.iter_vars)} iter vars; "
                            f"padding {list(padding)} must give a positive factor for each")
    extents = _trivial_extents(br, path, what)
    new_ext = {iv.var: -(-extents[iv.var] // int(p)) * int(p)
               for iv, p in zip(br.block.iter_vars, padding)}
    reads, writes = accesses(br.block)
    params = [b for _, b in ctx.func.buffer_map]
    swaps: dict[Buffer, Buffer] = {}
    for buf, idx in reads + writes:
        if buf in swaps or not all(isinstance(i, Var) and i in new_ext for i in idx):
            if buf not in swaps and not all(isinstance(i, Var) for i in idx):
                raise ScheduleError(f"{what}: block {name!r} must index {buf.name!r} by its "
                                    f"iter vars alone")
            continue
        shape = tuple(IntImm("int64", new_ext[i]) for i in idx)
        if [int(d.value) for d in shape] == [int(simplify(d).value) for d in buf.shape]:
            continue
        if any(b is buf for b in params):
            raise ScheduleError(f"{what}: block {name!r} accesses {buf.name!r}, a parameter; "
                                f"only intermediate buffers can be padded")
        swaps[buf] = dataclasses.replace(buf, name=f"{buf.name}_padded", shape=shape,
                                         data=Var(f"{buf.name}_padded", "handle"))
    read_set = {b for b, _ in reads} - {b for b, _ in writes}
    producers = []
    for buf in swaps:
        if buf in read_set:
            found = [p for p in writers(ctx.func.body, buf) if p[-1] is not br]
            if len(found) != 1:
                raise ScheduleError(f"{what}: {buf.name!r} needs exactly one producer block "
                                    f"to pad it, it has {len(found)}")
            producers.append((found[0], buf))
    body = _SwapBuffer(swaps).visit(ctx.func.body)
    body = _grow(body, name, new_ext)
    for ppath, buf in producers:
        body = _pad_producer(body, ppath, buf, swaps[buf], what)
    return ctx.func.with_body(body), None


def _pad_producer(body: Stmt, ppath: tree.Path, old: Buffer, new: Buffer, what: str) -> Stmt:
    """The producer of `old` writes all of `new`, zeros where `old` had no element."""
    br: BlockRealize = ppath[-1]  # type: ignore[assignment]
    store = br.block.body
    if not isinstance(store, BufferStore) or br.block.init is not None:
        raise ScheduleError(f"{what}: producer block {br.block.name!r} must be one store")
    extents = _trivial_extents(br, ppath, what)
    grow: dict[Var, int] = {}
    conds: list[PrimExpr] = []
    for i, old_dim, new_dim in zip(store.indices, old.shape, new.shape):
        if not (isinstance(i, Var) and i in extents):
            raise ScheduleError(f"{what}: producer block {br.block.name!r} must store at its "
                                f"iter vars")
        if int(new_dim.value) != int(simplify(old_dim).value):
            grow[i] = int(new_dim.value)
            conds.append(BinOp(BinaryOp.LT, i, IntImm(i.dtype, int(simplify(old_dim).value))))
    cond = conds[0]
    for c in conds[1:]:
        cond = BinOp(BinaryOp.AND, cond, c)
    zero = const(0, new.dtype)
    path = tree.block_path(body, br.block.name)
    cur: BlockRealize = path[-1]  # type: ignore[assignment]
    value = Call(new.dtype, "tir.if_then_else", (cond, cur.block.body.value, zero))
    block = dataclasses.replace(cur.block, body=dataclasses.replace(cur.block.body, value=value))
    body = tree.replace(path, dataclasses.replace(cur, block=block))
    return _grow(body, br.block.name, grow)
