"""Dataflow questions about blocks: get_producers, get_consumers, get_output_blocks.

As in TVM, the answer is about one scope: the blocks whose nearest enclosing block is the same
as the given block's. A producer writes a buffer the block reads; a consumer reads a buffer the
block writes; an output block writes a buffer of the function's parameters.
"""

from __future__ import annotations

from ..stmt import Block, BlockRealize, Buffer
from . import tree
from .analysis import accesses
from .state import Ctx


def _scope_of(path: tree.Path) -> Block | None:
    for s in reversed(path[:-1]):
        if isinstance(s, Block):
            return s
    return None


def _siblings(ctx: Ctx, path: tree.Path) -> list[BlockRealize]:
    """The blocks of the same scope as the block at `path` (itself included), in order."""
    scope = _scope_of(path)
    out = []
    for p in tree.walk(ctx.func.body):
        if isinstance(p[-1], BlockRealize) and _scope_of(p) is scope:
            out.append(p[-1])
    return out


def _buffers(br: BlockRealize, writes: bool) -> list[Buffer]:
    """Buffers a block (and the blocks nested in it) reads or writes."""
    out: list[Buffer] = []
    for inner in tree.blocks_under(br):
        reads, written = accesses(inner.block)
        for buf, _ in (written if writes else reads):
            if not any(buf is b for b in out):
                out.append(buf)
    return out


def _touches(bufs: list[Buffer], others: list[Buffer]) -> bool:
    return any(a is b for a in bufs for b in others)


def producers(ctx: Ctx, path: tree.Path) -> list[BlockRealize]:
    me: BlockRealize = path[-1]  # type: ignore[assignment]
    reads = _buffers(me, writes=False)
    return [br for br in _siblings(ctx, path)
            if br is not me and _touches(_buffers(br, writes=True), reads)]


def consumers(ctx: Ctx, path: tree.Path) -> list[BlockRealize]:
    me: BlockRealize = path[-1]  # type: ignore[assignment]
    writes = _buffers(me, writes=True)
    return [br for br in _siblings(ctx, path)
            if br is not me and _touches(_buffers(br, writes=False), writes)]


def output_blocks(ctx: Ctx, scope: BlockRealize | None) -> list[BlockRealize]:
    """Blocks in `scope` (None: the function's root), nested ones too, that write a
    parameter buffer, outer first (as TVM's get_output_blocks)."""
    params = [b for _, b in ctx.func.buffer_map]
    root = scope.block.body if scope is not None else ctx.func.body
    out = []
    for p in tree.walk(root):
        node = p[-1]
        if isinstance(node, BlockRealize):
            if node.block.name == "root" and scope is None:
                continue
            if _touches(_buffers(node, writes=True), params):
                out.append(node)
    if scope is None and isinstance(ctx.func.body, BlockRealize):
        return output_blocks(ctx, ctx.func.body) if ctx.func.body.block.name == "root" else out
    return out
