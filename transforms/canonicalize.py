"""CanonicalizeBindings (TVM's pass): bindings that only rename a value disappear.

- `y = x` (and `y = R.match_cast(x, S)` when `x` already has struct info `S`, and `y = t[i]`
  when `t` is bound to a tuple whose item `i` is a variable) is dropped; uses of `y` read `x`.
- When `y` is a dataflow block's output and `x` a dataflow variable of that block, the binding
  of `x` takes `y` as its variable instead (so nothing dataflow leaks out of the block).
- `y = (t[0], t[1])` rebuilding a 2-tuple `t` item by item is `y = t` (dropped as above).
- Uses of a variable bound to a constant (directly, or as a known tuple's item) read the
  constant; the binding stays.
- A non-dataflow variable bound in a dataflow block and used only inside it becomes a dataflow
  variable; blocks left empty go.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.analysis import _bindings
from ..ir.functor import ExprMutator, substitute_vars, var_use_counts
from ..ir import struct_info as si
from ..ir.structural import structural_equal
from ..ir.op import with_inferred_struct_info
from ..ir.type_analysis import definable_tir_vars_in_type, is_base_of
from ..tir import expr as tx


class _Plan:
    """What to drop, rename and replace, decided in one walk over the bindings."""

    def __init__(self, func: rx.Function) -> None:
        self.values: dict[rx.Var, rx.Expr] = {}
        self.remap: dict[rx.Var, rx.Var] = {}
        self.rename: dict[rx.Var, rx.Var] = {}  # dataflow var -> the output var it becomes
        self.constants: dict[rx.Var, rx.Expr] = {}
        self.dropped: set[int] = set()
        self.dims: dict[Any, Any] = {}  # symbolic dims a match_cast only renames -> theirs
        self.defined = {d for p in func.params for d in definable_tir_vars_in_type(
            p.struct_info or si.ObjectStructInfo())}
        for b in _bindings(func.body):
            self.values[b.var] = b.value
            self.visit(b)

    def root(self, v: rx.Var) -> rx.Var:
        while v in self.remap:
            v = self.remap[v]
        return self.rename.get(v, v)

    def item(self, value: rx.TupleGetItem) -> rx.Expr | None:
        tup = value.tuple_value
        known = self.values.get(self.root(tup)) if isinstance(tup, rx.Var) else tup
        if isinstance(tup, rx.Var) and known is None:
            known = self.values.get(tup)
        return known.fields[value.index] if isinstance(known, rx.Tuple) else None

    def visit(self, b: Any) -> None:
        v = b.value
        target = None
        if isinstance(b, rx.VarBinding) and isinstance(v, rx.Var):
            target = self.root(v)
        elif isinstance(b, rx.VarBinding) and isinstance(v, rx.TupleGetItem):
            field = self.item(v)
            if isinstance(field, rx.Var):
                target = self.root(field)
            elif isinstance(field, rx.Constant):
                self.constants[b.var] = field
        elif isinstance(b, rx.MatchCast) and isinstance(v, rx.Var) and \
                self.trivial_cast(b.struct_info, v.struct_info):
            target = self.root(v)
        elif isinstance(b, rx.VarBinding) and isinstance(v, rx.Constant):
            self.constants[b.var] = v
        elif isinstance(b, rx.VarBinding) and isinstance(v, rx.Tuple):
            target = self.rewrapped(v)
        if target is None:
            return
        self.dropped.add(id(b))
        if isinstance(b.var, rx.DataflowVar) or not isinstance(target, rx.DataflowVar):
            self.remap[b.var] = target
        else:
            self.rename[target] = b.var

    def rewrapped(self, tup: rx.Tuple) -> rx.Var | None:
        """The tuple variable `tup` rebuilds item by item (`(t[0], t[1])` of a 2-tuple `t`),
        if any: TVM uses the original tuple instead of unwrapping and rewrapping it."""
        source = None
        for i, f in enumerate(tup.fields):
            item = self.values.get(self.root(f)) if isinstance(f, rx.Var) else None
            if not (isinstance(item, rx.TupleGetItem) and item.index == i and
                    isinstance(item.tuple_value, rx.Var)):
                return None
            if source is not None and self.root(item.tuple_value) is not source:
                return None
            source = self.root(item.tuple_value)
        sinfo = source.struct_info if source is not None else None
        if not isinstance(sinfo, si.TupleStructInfo) or len(sinfo.fields) != len(tup.fields):
            return None
        return source

    def trivial_cast(self, cast: Any, known: Any) -> bool:
        """Whether a match_cast to `cast` of a value of struct info `known` checks nothing:
        equal struct info, or new symbolic dims that only rename known dims (recorded)."""
        if structural_equal(cast, known):
            return True
        renames: dict[Any, Any] = {}
        if not _dims_rename(cast, known, renames, self.defined | set(self.dims)):
            return False
        self.dims.update(renames)
        return True

    def var_map(self) -> dict[rx.Var, rx.Expr]:
        found: dict[rx.Var, rx.Expr] = {v: self.root(v) for v in self.remap}
        found.update(self.rename)
        return found


def _dims_rename(cast: Any, known: Any, out: dict[Any, Any], taken: set[Any]) -> bool:
    """Fill `out` with cast dim -> known dim where `cast` differs from `known` only by fresh
    symbolic dims standing for known ones."""
    if isinstance(cast, si.TupleStructInfo) and isinstance(known, si.TupleStructInfo):
        return len(cast.fields) == len(known.fields) and all(
            _dims_rename(c, k, out, taken) for c, k in zip(cast.fields, known.fields))
    if not (isinstance(cast, si.TensorStructInfo) and isinstance(known, si.TensorStructInfo)):
        return structural_equal(cast, known)
    if cast.dtype != known.dtype or cast.shape is None or known.shape is None or \
            len(cast.shape) != len(known.shape):
        return False
    for c, k in zip(cast.shape, known.shape):
        c = out.get(c, c)
        if structural_equal(c, k):
            continue
        if not isinstance(c, tx.Var) or c in taken:
            return False
        out[c] = k
    return True


class _Apply(ExprMutator):
    def __init__(self, plan: _Plan, mapping: dict[rx.Var, rx.Expr]) -> None:
        self.plan, self.mapping = plan, mapping

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.mapping.get(v, v)

    visit_DataflowVar = visit_Var

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        for b in block.bindings:
            if id(b) in self.plan.dropped:
                continue
            var = self.plan.rename.get(b.var, b.var)
            value = self.visit(b.value)
            if value is not b.value and isinstance(b, rx.VarBinding):
                value, var = self.refine(value, var)
            out.append(replace(b, var=var, value=value))
        return replace(block, bindings=tuple(out))

    def refine(self, value: rx.Expr, var: rx.Var) -> tuple[rx.Expr, rx.Var]:
        """An operator call or tuple whose arguments changed has its struct info inferred
        again; a variable bound to it gets the more precise struct info (uses follow)."""
        if isinstance(value, rx.Tuple):
            value = rx.Tuple(value.fields, span=value.span)
        elif isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
            value = with_inferred_struct_info(replace(value, struct_info=None))
        else:
            return value, var
        new, old = value.struct_info, var.struct_info
        if new is None or old is None or structural_equal(new, old) or \
                not is_base_of(old, new):
            return value, var
        refined = type(var)(var.name_hint, new, var.span)
        self.mapping[var] = refined
        return value, refined


class _Refine(_Apply):
    """Every operator call inferred again (its variable refined when that is more precise)."""

    def __init__(self) -> None:
        self.mapping: dict[rx.Var, rx.Expr] = {}

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        for b in block.bindings:
            value = self.visit(b.value)
            var = b.var
            if isinstance(b, rx.VarBinding):
                value, var = self.refine(value, var)
            out.append(replace(b, var=var, value=value))
        return replace(block, bindings=tuple(out))


def _dataflow_locals(func: rx.Function) -> dict[rx.Var, rx.Var]:
    """Output vars of dataflow blocks that nothing after their block reads -> dataflow vars."""
    found: dict[rx.Var, rx.Var] = {}
    seqs = [func.body] + [n for b in _bindings(func.body) for n in _seqs(b.value)]
    for seq in seqs:
        for i, blk in enumerate(seq.blocks):
            if not isinstance(blk, rx.DataflowBlock):
                continue
            later = [b.value for after in seq.blocks[i + 1:] for b in after.bindings]
            used_after = var_use_counts(*later, seq.body)
            for b in blk.bindings:
                if not isinstance(b.var, rx.DataflowVar) and b.var not in used_after:
                    found[b.var] = rx.DataflowVar(b.var.name_hint, b.var.struct_info,
                                                  b.var.span)
    return found


def _seqs(value: Any) -> list[rx.SeqExpr]:
    if isinstance(value, rx.If):
        return [value.true_branch, value.false_branch]
    return []


class _Retype(ExprMutator):
    """Rename binding variables (and their uses) by `mapping`."""

    def __init__(self, mapping: dict[rx.Var, rx.Var]) -> None:
        self.mapping = mapping

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.mapping.get(v, v)

    visit_DataflowVar = visit_Var

    def visit_binding(self, b: Any) -> Any:
        b = super().visit_binding(b)
        var = self.mapping.get(b.var)
        return b if var is None else replace(b, var=var)


class _DropEmpty(ExprMutator):
    def visit_seq_expr(self, seq: rx.SeqExpr) -> rx.SeqExpr:
        seq = super().visit_seq_expr(seq)
        blocks = tuple(b for b in seq.blocks if b.bindings)
        return seq if len(blocks) == len(seq.blocks) else replace(seq, blocks=blocks)


def canonicalize(func: rx.Function) -> rx.Function:
    """`func` with its renaming bindings removed (see the module docstring)."""
    plan = _Plan(func)
    ret, deduced = func.ret_struct_info, func.body.body.struct_info
    func = _Apply(plan, plan.var_map()).visit(func)
    if plan.dims:  # the renamed dims, everywhere; then calls can infer more precise info
        from .bind_symbolic import _Substitute

        func = _Refine().visit(_Substitute(plan.dims)(func))
    local = _dataflow_locals(func)
    if local:
        func = _Retype(local).visit(func)
    constants = {local.get(v, v): c for v, c in plan.constants.items()
                 if v not in plan.rename}
    if constants:
        func = replace(func, body=_substitute_uses(func.body, constants))
    func = _DropEmpty().visit(func)
    now = func.body.body.struct_info
    if ret is not None and deduced is not None and now is not None and \
            structural_equal(ret, deduced) and is_base_of(ret, now):
        func = replace(func, ret_struct_info=now)  # deduced, not annotated: follows the body
    return func


def _substitute_uses(seq: rx.SeqExpr, mapping: dict[rx.Var, rx.Expr]) -> rx.SeqExpr:
    return substitute_vars(seq, mapping)  # type: ignore[return-value]
