"""Rewrites around matmul that TVM runs before fusing or combining kernels:
ExpandMatmulOfSum, ReorderTakeAfterMatmul and ReorderPermuteDimsAfterConcat (TVM's passes of
those names; CombineParallelMatmul is in combine_parallel_matmul.py).

Each is a `BlockRewriter` (graph_rewrites.py): a binding is kept, or replaced by new bindings
made with the operators' own builders, so every new call carries inferred struct info.
"""

from __future__ import annotations

from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import IRModule
from ..ir.structural import structural_equal
from ..tir.functor import simplify
from ..ir.usage_analysis import computable_at_compile_time
from .combine_parallel_matmul import CombineParallelMatmul  # noqa: F401  (its home before)
from .graph_rewrites import BlockRewriter, op
from .pass_infra import Pass, PassContext


def _is(e: Any, name: str) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == f"relax.{name}"


def _ndim(e: rx.Expr) -> int:
    s = e.struct_info
    return s.ndim if isinstance(s, si.TensorStructInfo) else -1


def _perm(call: rx.Call) -> list[int] | None:
    """The permutation a permute_dims applies (None axes: all axes reversed)."""
    n = _ndim(call.args[0])
    if n < 0:
        return None
    axes = call.attr("axes")
    return list(range(n))[::-1] if axes is None else [int(a) % n for a in axes]


class _ValueRewriter(BlockRewriter):
    """A BlockRewriter that remembers what each variable is bound to."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[rx.Var, rx.Expr] = {}
        self.fixed: set[rx.Var] = set()

    def run(self, func: rx.Function) -> rx.Function:
        self.fixed = set(computable_at_compile_time(func))
        return super().run(func)

    def rewrite(self, b: Any) -> Any:
        new = self.rewrite_value(b.value) if isinstance(b, rx.VarBinding) else None
        self.values[b.var] = new if new is not None else b.value
        return new

    def rewrite_value(self, value: rx.Expr) -> rx.Expr | None:
        return None

    def bound(self, e: rx.Expr) -> rx.Expr | None:
        return self.values.get(e) if isinstance(e, rx.Var) else None


def _pass(name: str, rewriter: type[_ValueRewriter]) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        from .simple_passes import remove_unused

        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            new = rewriter().run(f)
            return remove_unused(new) if new is not f else f
        return mod.map_functions(one)
    return Pass(run, name)


# -- ExpandMatmulOfSum -----------------------------------------------------------------------


class _ExpandSum(_ValueRewriter):
    def rewrite_value(self, value: rx.Expr) -> rx.Expr | None:
        if not _is(value, "matmul"):
            return None
        x, w = value.args
        bound = self.bound(w)
        transpose = _is(bound, "permute_dims") and _perm(bound) == list(range(_ndim(w)))[::-1]
        total = self.bound(bound.args[0]) if transpose else bound
        if not _is(total, "add") or all(a in self.fixed or isinstance(a, rx.Constant)
                                        for a in total.args):
            return None
        parts = []
        for term in total.args:
            rhs = self.emit(op("permute_dims")(term, None)) if transpose else term
            parts.append(self.emit(op("matmul")(x, rhs, value.attr("out_dtype"))))
        return op("add")(*parts)


def ExpandMatmulOfSum() -> Pass:  # noqa: N802
    """`x @ (A + B)` becomes `x @ A + x @ B` when `A + B` is not known at compile time (so
    CombineParallelMatmul can then merge the two products)."""
    return _pass("ExpandMatmulOfSum", _ExpandSum)


# -- ReorderTakeAfterMatmul ------------------------------------------------------------------


class _TakeAfter(_ValueRewriter):
    def rewrite_value(self, value: rx.Expr) -> rx.Expr | None:
        if not _is(value, "matmul"):
            return None
        x, w = value.args
        take = self.bound(w)
        if not _is(take, "take") or _ndim(take.args[1]) != 1 or _ndim(x) < 1:
            return None
        axis = int(take.attr("axis") or 0)
        if _ndim(take.args[0]) == 2 and axis % 2 == 1:
            table = self.emit(op("matmul")(x, take.args[0], value.attr("out_dtype")),
                              "out_table")
            return op("take")(table, take.args[1], _ndim(x) - 1)
        if _ndim(take.args[0]) == 3 and axis % 3 == 0:
            return self.batched(x, take.args[0], take.args[1], value.attr("out_dtype"))
        return None

    def batched(self, x: rx.Expr, table: rx.Expr, rows: rx.Expr, out_dtype: Any
                ) -> rx.Expr | None:
        """`x[b] @ table[rows[b]]` for each batch row b: one matmul against every table
        entry side by side ([K, R*N]), then each row's own entry read off the diagonal."""
        xs, ts, rs = (e.struct_info for e in (x, table, rows))
        if _ndim(x) != 3 or xs.shape is None or ts.shape is None or rs.shape is None or \
                not structural_equal(xs.shape[0], rs.shape[0]):
            return None  # the diagonal read needs one table row per batch row
        (batch, m, _), (entries, k, n) = xs.shape, ts.shape
        reordered = self.emit(op("permute_dims")(table, [1, 0, 2]), "reordered_weight")
        fused = self.emit(op("reshape")(reordered, [k, simplify(entries * n)]), "fused_weight")
        product = self.emit(op("matmul")(x, fused, out_dtype), "fused_output")
        split = self.emit(op("reshape")(product, [batch, m, entries, n]), "reordered_output")
        tabular = self.emit(op("take")(split, rows, 2), "tabular_output")
        return op("einsum")([tabular], "ijik->ijk")


def ReorderTakeAfterMatmul() -> Pass:  # noqa: N802
    """`x @ take(W, idx, axis=1)` becomes `take(x @ W, idx, axis=-1)`: the product is taken
    once over the whole table. A batched table (`take(W, idx, axis=0)` of a [R, K, N] table,
    one index per row of a [B, M, K] `x`) becomes one matmul against all R entries side by
    side, each row's entry then read off with `take` and an `ijik->ijk` einsum, as TVM's."""
    return _pass("ReorderTakeAfterMatmul", _TakeAfter)


# -- ReorderPermuteDimsAfterConcat -----------------------------------------------------------


class _PermuteAfterConcat(_ValueRewriter):
    def rewrite_value(self, value: rx.Expr) -> rx.Expr | None:
        if not _is(value, "concat") or not isinstance(value.args[0], rx.Tuple):
            return None
        items = [self.bound(f) for f in value.args[0].fields]
        if not items or not all(_is(i, "permute_dims") for i in items):
            return None
        perms = [_perm(i) for i in items]
        if perms[0] is None or any(p != perms[0] for p in perms):
            return None
        perm = perms[0]
        axis = int(value.attr("axis") or 0) % len(perm)
        inner = rx.Tuple(tuple(i.args[0] for i in items), si.TupleStructInfo(
            tuple(i.args[0].struct_info for i in items)))
        joined = self.emit(op("concat")(inner, perm[axis]))
        axes = None if perm == list(range(len(perm)))[::-1] else perm
        return op("permute_dims")(joined, axes)


def ReorderPermuteDimsAfterConcat() -> Pass:  # noqa: N802
    """`concat([permute_dims(a), permute_dims(b)])` becomes `permute_dims(concat([a, b]))`
    when every item is permuted the same way."""
    return _pass("ReorderPermuteDimsAfterConcat", _PermuteAfterConcat)
