"""te compute inlining (TVM's `compute_inline`, on te tensors): a compute rebuilt with every
injective compute it reads substituted at its use, so a chain of elementwise computes becomes
one loop nest with no intermediate buffers."""

from __future__ import annotations

from ..tir import expr as tx
from ..tir.functor import Mutator
from .tensor import ComputeOp, Reduce, Tensor, compute, tensor_of


def inline_injective(t: Tensor) -> Tensor:
    """`t` as one compute reading only what is not an injective compute (placeholders,
    reductions, computes with a loop nest of their own); `t` itself when it is not an
    injective compute."""
    op = t.op
    if not _injective(op):
        return t
    body = _Inline({}).visit(op.body)
    axes = op.axis
    return compute(t.shape, lambda *i: _Inline(dict(zip(axes, i)), inline=False).visit(body),
                   name=op.name)


def _injective(op: object) -> bool:
    return (isinstance(op, ComputeOp) and not isinstance(op.body, Reduce) and op.nest is None
            and op.epilogue is None)


class _Inline(Mutator):
    """Substitutes `vmap` (axis -> index) and, with `inline`, each load of an injective
    compute by that compute's body at the load's indices."""

    def __init__(self, vmap: dict[tx.Var, tx.PrimExpr], inline: bool = True) -> None:
        self.vmap, self.inline = vmap, inline

    def visit_Var(self, v: tx.Var) -> tx.PrimExpr:
        return self.vmap.get(v, v)

    visit_AxisVar = visit_Var

    def visit_BufferLoad(self, e: tx.BufferLoad) -> tx.PrimExpr:
        indices = tuple(self.visit(i) for i in e.indices)
        producer = tensor_of(e.buffer) if self.inline else None
        if producer is not None and _injective(producer.op):
            body = _Inline({}).visit(producer.op.body)  # inline its own producers first
            return _Inline(dict(zip(producer.op.axis, indices)), inline=False).visit(body)
        return tx.BufferLoad(e.buffer, indices)
