"""Simplifications of what the Gradient pass emits around matmul (TVM's SimplifyGradient).

The matmul rule transposes operands that are often transposes already, and transposes
products. Walking the adjoint's bindings in order, with "transpose" meaning a permute_dims
swapping the last two axes:

- `v = transpose(t)` with `t = transpose(a)` earlier: `v` is `a` (the binding goes);
- `v = transpose(m)` with `m = matmul(a, b)` earlier (both at least 2-d): `v` becomes
  `matmul(transpose(b), transpose(a))`, where the transpose of an operand that is itself a
  transpose is that transpose's input.

Bindings left unused afterwards are removed.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.op import op_attr
from .gradient_emit import Emitter
from .simple_passes import remove_unused


def _ndim(e: rx.Expr) -> int:
    sinfo = e.struct_info
    return sinfo.ndim if isinstance(sinfo, si.TensorStructInfo) else -1


def _is_op(e: rx.Expr, name: str) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == name


def _is_transpose(e: rx.Expr) -> bool:
    """permute_dims swapping the last two axes of a tensor of known rank >= 2."""
    if not _is_op(e, "relax.permute_dims"):
        return False
    n = _ndim(e.args[0])  # type: ignore[union-attr]
    if n in (-1, 1):
        return False
    axes = e.attr("axes")  # type: ignore[union-attr]
    if axes is None:
        return n == 2
    return [int(a) for a in axes] == [*range(n - 2), n - 1, n - 2]


def _transpose(e: rx.Expr) -> rx.Expr:
    n = _ndim(e)
    if n == 1:
        return e
    return op_attr("relax.permute_dims", "make")(e, [*range(n - 2), n - 1, n - 2])


class _Simplifier:
    def __init__(self) -> None:
        self.values: dict[rx.Var, rx.Expr] = {}
        self.remap: dict[rx.Var, rx.Expr] = {}
        self.em = Emitter([])

    def _bound(self, e: rx.Expr) -> rx.Expr | None:
        return self.values.get(e) if isinstance(e, rx.Var) else None

    def _transpose_in_context(self, e: rx.Expr) -> rx.Expr:
        prev = self._bound(e)
        return prev.args[0] if prev is not None and _is_transpose(prev) else _transpose(e)

    def binding(self, b: rx.Binding) -> None:
        value = substitute_vars(b.value, self.remap) if self.remap else b.value
        prev = self._bound(value.args[0]) if _is_transpose(value) else None
        if prev is not None and _is_transpose(prev) and isinstance(prev.args[0], rx.Var):
            self.remap[b.var] = prev.args[0]  # transpose(transpose(a)) is a
            return
        if prev is not None and _is_op(prev, "relax.matmul") and \
                _ndim(prev.args[0]) != 1 and _ndim(prev.args[1]) != 1:
            a = self._transpose_in_context(prev.args[0])
            c = self._transpose_in_context(prev.args[1])
            value = self.em.normalize(op_attr("relax.matmul", "make")(
                c, a, prev.attr("out_dtype")))
        self.values[b.var] = value
        self.em.bindings.append(replace(b, value=value) if value is not b.value else b)


def simplify_gradient(func: rx.Function) -> rx.Function:
    """`func` (one dataflow block, as the Gradient pass makes) with the patterns above
    simplified."""
    (block,) = func.body.blocks
    s = _Simplifier()
    for b in block.bindings:
        s.binding(b)
    body = substitute_vars(func.body.body, s.remap) if s.remap else func.body.body
    seq = rx.SeqExpr((rx.DataflowBlock(tuple(s.em.bindings)),), body)
    return remove_unused(replace(func, body=seq))
