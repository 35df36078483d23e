"""Where a prim_func's `T.alloc_buffer` outside every block goes, as in TVM 0.27: a flat
`AllocBuffer` statement where it was written when the function has no blocks; one of the
buffers of the implicit root block when it has, as `T.sblock_alloc_buffer`'s always are.
(TVM 0.27 adds a root block to every function with blocks; tvmlite only when buffers need it,
and compares both as equal.)"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.functor import Mutator, any_node

TRUE = tx.IntImm("bool", 1)


def root_alloc(p: Any, buf: ts.Buffer, span: Any, then: list[ts.Stmt] = ()) -> Any:
    """For a buffer allocated outside every block: a Wrap putting its AllocBuffer (and the
    statements `then`) before the rest of the body; None for a block's buffer."""
    from .core import Wrap
    from .tir_parser import func_frame

    frame = func_frame(p)
    if not any(b is buf for b in frame.root_allocs) or any(b is buf for b in frame.block_only):
        return None
    return Wrap(lambda body: ts.seq([ts.AllocBuffer(buf, span), *then, *body]), flat=True)


def has_blocks(body: Any) -> bool:
    return any_node(body, lambda n: type(n) in (ts.Block, ts.BlockRealize))


class _DropAllocs(Mutator):
    """The body without the AllocBuffer statements of the buffers the root block takes."""

    def __init__(self, bufs: list[ts.Buffer]) -> None:
        self.ids = {id(b) for b in bufs}

    def visit_SeqStmt(self, s: ts.SeqStmt) -> ts.Stmt:
        kept = [self.visit(x) for x in s.seq if not self._dropped(x)]
        if len(kept) == len(s.seq) and all(a is b for a, b in zip(kept, s.seq)):
            return s
        return ts.seq(kept) if kept else ts.Evaluate(tx.IntImm("int32", 0))

    def visit_AllocBuffer(self, s: ts.AllocBuffer) -> ts.Stmt:
        return ts.Evaluate(tx.IntImm("int32", 0)) if self._dropped(s) else s

    def _dropped(self, s: Any) -> bool:
        return type(s) is ts.AllocBuffer and id(s.buffer) in self.ids


def with_root(body: ts.Stmt, root_allocs: list[ts.Buffer],
              block_only: list[ts.Buffer] = ()) -> ts.Stmt:
    """The function body, given the buffers allocated outside every block: those of
    `T.alloc_buffer` also written in place as an AllocBuffer, those of `T.sblock_alloc_buffer`
    (`block_only`) not, as they always belong to the root block."""
    body = _unwrap_bare_root(body)
    if has_blocks(body):
        body = _DropAllocs(root_allocs).visit(body) if root_allocs else body
    else:
        root_allocs = list(block_only)
    if not root_allocs:
        return body
    root = ts.Block("root", (), body, alloc_buffers=tuple(root_allocs))
    return ts.BlockRealize((), TRUE, root)


def _unwrap_bare_root(body: Any) -> Any:
    """An explicit `with T.sblock("root")` holding only statements is the root TVM makes
    anyway: keep its body, so it equals the function written without it."""
    if isinstance(body, ts.BlockRealize) and not body.iter_values:
        b = body.block
        if (b.name == "root" and not b.alloc_buffers and not b.match_buffers
                and not b.annotations and b.init is None and not b.iter_vars):
            return b.body
    return body
