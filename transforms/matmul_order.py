"""AdjustMatmulOrder (TVM's pass): `x @ (A @ B)` becomes `(x @ A) @ B` (and `(A @ B) @ x`
becomes `A @ (B @ x)`) when that provably costs fewer multiply-adds.

Costs are products of dims, which may be symbolic. "Provably" is checked by evaluating both
costs with every symbolic dim set to each of a spread of sizes (1 to 2**20, all combinations
for up to three dims): a rewrite that is cheaper for small dims but dearer for large ones is
not made, and the existing order is kept. A product `A @ B` whose operands are both known at
compile time (parameters past `num_input`) is kept whole, since it can be folded ahead.
A transposed product `permute_dims(A @ B)` is read as `B^T @ A^T`.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.analysis import get_var2val
from ..ir.module import IRModule
from ..ir.op import op_attr
from ..ir.usage_analysis import computable_at_compile_time
from ..tir.expr import IntImm, PrimExpr
from ..tir.function import free_vars as prim_free_vars
from ..tir.interpreter import Interpreter
from .pass_infra import Pass, PassContext

_SAMPLES = (1, 2, 3, 8, 64, 1024, 2**20)


def _make(name: str, *args: Any) -> rx.Call:
    return op_attr(f"relax.{name}", "make")(*args)


def _is(e: Any, name: str) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == f"relax.{name}"


def _cost(a: rx.Expr, out: Any) -> PrimExpr | int | None:
    """Multiply-adds of a matmul with left operand `a` and result struct info `out`."""
    sa = a.struct_info
    if not (isinstance(sa, si.TensorStructInfo) and sa.shape and isinstance(
            out, si.TensorStructInfo) and out.shape is not None):
        return None
    cost: PrimExpr | int = sa.shape[-1]
    for d in out.shape:
        cost = cost * d
    return cost


def _always_less(new: Any, old: Any, bounds: dict[str, int]) -> bool:
    """new < old for every sampled size of the symbolic dims (each up to its bound in the
    function's `tir_var_upper_bound`, when it has one)."""
    exprs = [e for e in (new, old) if isinstance(e, PrimExpr)]
    dims = list(dict.fromkeys(v for e in exprs for v in prim_free_vars(e)))
    if len(dims) > 3:
        return False
    it = Interpreter()
    ranges = []
    for d in dims:
        top = bounds.get(d.name)
        ranges.append(_SAMPLES if top is None else
                      sorted({v for v in _SAMPLES if v <= top} | {int(top)}))
    for values in itertools.product(*ranges):
        it.env.update(zip(dims, values))
        n = new if isinstance(new, int) else int(it.eval(new))
        o = old if isinstance(old, int) else int(it.eval(old))
        if n >= o:
            return False
    return True


def _transposed(e: rx.Expr, values: dict[rx.Var, rx.Expr], emit: _Emit) -> rx.Expr:
    """`e^T` (the last two axes swapped) as a new binding."""
    s = e.struct_info
    ndim = s.ndim if isinstance(s, si.TensorStructInfo) else -1
    axes = None if ndim <= 2 else list(range(ndim - 2)) + [ndim - 1, ndim - 2]
    return _bind(_make("permute_dims", e, axes), emit)


class _Emit(list):
    """New bindings, with the kind of variable the block they go to needs."""

    def __init__(self, make: type) -> None:
        super().__init__()
        self.make = make


def _bind(value: rx.Expr, emit: _Emit) -> rx.Var:
    var = emit.make(f"lv{len(emit)}", value.struct_info)
    emit.append(rx.VarBinding(var, value))
    return var


def _factors(e: rx.Expr, values: dict[rx.Var, rx.Expr]
             ) -> tuple[rx.Expr, rx.Expr, bool] | None:
    """(A, B, False) when `e` is bound to `A @ B`; (B', A', True) when it is bound to
    `permute_dims(A' @ B')`, whose factors are then the transposes of those."""
    v = values.get(e) if isinstance(e, rx.Var) else None
    if _is(v, "matmul"):
        return v.args[0], v.args[1], False
    if _is(v, "permute_dims") and isinstance(v.args[0], rx.Var):
        inner = values.get(v.args[0])
        s = v.struct_info
        swap_last = isinstance(s, si.TensorStructInfo) and s.ndim == 2 and \
            v.attr("axes") in (None, (1, 0), [1, 0])
        if _is(inner, "matmul") and swap_last:
            a, b = inner.args
            return b, a, True
    return None


class _Reorder:
    def __init__(self, func: rx.Function) -> None:
        self.values = get_var2val(func)
        self.fixed = set(computable_at_compile_time(func))
        bounds = func.attr_dict.get("tir_var_upper_bound") or {}
        self.bounds = {str(k): int(getattr(v, "value", v)) for k, v in dict(bounds).items()}

    def compile_time(self, *exprs: rx.Expr) -> bool:
        return all(isinstance(e, rx.Constant) or e in self.fixed for e in exprs)

    def rewrite(self, call: rx.Call, make: type) -> list[Any] | None:
        """New bindings ending in one bound to the reordered product, or None."""
        x, y = call.args
        old_inner = [e for e in (x, y) if _is(self.values.get(e), "matmul") or
                     _is(self.values.get(e), "permute_dims")]
        for side in ("lhs", "rhs"):
            emit = _Emit(make)
            factors = _factors(y if side == "lhs" else x, self.values)
            if factors is None or self.compile_time(*factors[:2]):
                continue
            a, b, flip = factors

            def t(e: rx.Expr) -> rx.Expr:
                return _transposed(e, self.values, emit) if flip else e

            if side == "lhs":  # x @ (a @ b) -> (x @ a) @ b
                first = _make("matmul", x, t(a))
                new_cost = _cost(x, first.struct_info)
                tmp = _bind(first, emit)
                last = _make("matmul", tmp, t(b))
                inner_val = self.values[y]
            else:  # (a @ b) @ y -> a @ (b @ y)
                tb = t(b)
                first = _make("matmul", tb, y)
                new_cost = _cost(tb, first.struct_info)
                tmp = _bind(first, emit)
                a = t(a)
                last = _make("matmul", a, tmp)
                inner_val = self.values[x]
            inner = inner_val if _is(inner_val, "matmul") else self.values[inner_val.args[0]]
            old = [_cost(inner.args[0], inner.struct_info), _cost(x, call.struct_info)]
            new = [new_cost, _cost(tmp if side == "lhs" else a, last.struct_info)]
            if None in old or None in new or not old_inner:
                continue
            if _always_less(_total(new), _total(old), self.bounds):
                return emit + [last]
        return None


def _total(costs: list[Any]) -> Any:
    total = costs[0]
    for c in costs[1:]:
        total = total + c
    return total.value if isinstance(total, IntImm) else total


def _adjust(func: rx.Function) -> rx.Function:
    from .simple_passes import remove_unused

    r = _Reorder(func)
    changed = False
    blocks = []
    for blk in func.body.blocks:
        out: list[Any] = []
        for b in blk.bindings:
            make = rx.DataflowVar if isinstance(blk, rx.DataflowBlock) else rx.Var
            new = r.rewrite(b.value, make) if isinstance(b, rx.VarBinding) and \
                _is(b.value, "matmul") else None
            if new is None:
                out.append(b)
                continue
            changed = True
            for extra in new[:-1]:
                out.append(extra)
                r.values[extra.var] = extra.value
            out.append(replace(b, value=new[-1]))
        blocks.append(replace(blk, bindings=tuple(out)))
    if not changed:
        return func
    return remove_unused(replace(func, body=replace(func.body, blocks=tuple(blocks))))


def AdjustMatmulOrder() -> Pass:  # noqa: N802
    """Reassociate chains of two matmuls into the cheaper order (see the module docstring)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _adjust(f) if isinstance(f, rx.Function) else f)
    return Pass(run, "AdjustMatmulOrder")
