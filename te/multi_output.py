"""Computes with several outputs: `B0, B1 = te.compute(shape, lambda i: (a, b))`, and tuple
reductions such as argmax (`te.comm_reducer` over `(index, value)` pairs).

As in TVM, the outputs are tensors `B.v0`, `B.v1`, ... of one op. An elementwise one becomes,
in `create_prim_func`, one block per output inside a shared loop nest; a tuple reduction one
block that initializes every output, binds each combined value with a `T.let`, then stores
them all (the combiner reads the old values of all outputs, so none may be stored early).
"""

from __future__ import annotations

from typing import Any

from ..tir import expr as tx
from ..tir.stmt import BufferStore, LetStmt, Stmt, make_buffer, seq
from .tensor import AxisVar, ComputeOp, Reduce, Tensor, check_reductions_on_top


def multi_output_compute(name: str, dims: tuple[tx.PrimExpr, ...], axis: tuple[AxisVar, ...],
                         bodies: tuple[Any, ...], tag: str, attrs: dict[str, Any]
                         ) -> list[Tensor]:
    """The output tensors of a compute whose function returned several values."""
    bodies = tuple(b if isinstance(b, tx.PrimExpr) else tx.const(b) for b in bodies)
    _check_outputs(bodies)
    check_reductions_on_top(bodies)
    op = ComputeOp(name, axis, bodies[0], tag, attrs, bodies=bodies)
    op.outputs = [Tensor(make_buffer(f"{name}_v{k}", dims, b.dtype), op, k)
                  for k, b in enumerate(bodies)]
    return list(op.outputs)


def _check_outputs(bodies: tuple[tx.PrimExpr, ...]) -> None:
    reduces = [b for b in bodies if isinstance(b, Reduce)]
    if reduces and len(reduces) != len(bodies):
        raise RuntimeError("te.compute: the outputs must be all reductions or none (a "
                           "reduction and a plain value cannot share a compute)")
    if not reduces:
        return
    first = reduces[0]
    for r in reduces[1:]:
        if not (r.combiner is first.combiner and r.axis == first.axis and r.sources
                and r.sources == first.sources and r.condition is first.condition):
            raise RuntimeError("te.compute: the reductions of one compute must be the values "
                               "of one tuple reduction (same reducer, axes and inputs)")


def is_multi_output(op: Any) -> bool:
    return isinstance(op, ComputeOp) and len(op.bodies) > 1


def tuple_reduce_body(op: ComputeOp, rename: Any, store_idx: tuple[tx.Var, ...]
                      ) -> tuple[Stmt, Stmt]:
    """The update and init of a tuple reduction's one block (iter vars already renamed by
    `rename`): each combined value bound by a let, then every output stored."""
    red = op.body
    assert isinstance(red, Reduce)
    outs = [t.buffer for t in op.outputs]
    olds = tuple(tx.BufferLoad(b, store_idx) for b in outs)
    combined = red.combiner.fcombine(olds, tuple(red.sources))
    lets = [tx.Var(f"v_{b.name}", b.dtype) for b in outs]
    body: Stmt = seq([BufferStore(b, v, store_idx) for b, v in zip(outs, lets)])
    for v, value in reversed(list(zip(lets, combined))):
        body = LetStmt(v, rename.visit(tx.const(value)), body)
    identity = red.combiner.identities(tuple(b.dtype for b in outs))
    init = seq([BufferStore(b, rename.visit(i), store_idx) for b, i in zip(outs, identity)])
    return body, init
