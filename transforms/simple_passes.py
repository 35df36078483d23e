"""Small graph passes: DeadCodeElimination, CanonicalizeBindings, ToNonDataflow, Normalize,
and KillAfterLastUse, which our VM lowering makes nearly a no-op (memory is planned by the
VM; see vm/static_plan.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.analysis import _nodes
from ..ir.functor import ExprVisitor, substitute_vars, var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.type_analysis import definable_tir_vars_in_type
from ..ir.usage_analysis import _impure
from ..tir.function import PrimFunc
from .pass_infra import Pass, PassContext


def _function_pass(name: str, fn: Any) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: fn(f) if isinstance(f, rx.Function) else f)
    return Pass(run, name)


def _uses(node: Any) -> set[rx.Var]:
    return set(var_use_counts(node))


def _is_pure(value: rx.Expr, in_dataflow: bool = False) -> bool:
    """Whether dropping an unused binding of `value` loses no effect (dataflow blocks hold
    pure values only; elsewhere R.call_packed and calls of impure functions have effects)."""
    return in_dataflow or not any(isinstance(n, rx.Call) and _impure(n, None)
                                  for n in _nodes(value) if not isinstance(n, rx.Function))


def _needed(b: Any, used: set[rx.Var], in_dataflow: bool) -> bool:
    if b.var in used or not _is_pure(b.value, in_dataflow):
        return True
    # NOTE: a match_cast that defines symbolic dims is where later shapes learn them
    return isinstance(b, rx.MatchCast) and bool(definable_tir_vars_in_type(b.struct_info))


def remove_unused(func: Any) -> Any:
    """Drop bindings (in any block) whose var is never used and whose value is pure, then
    blocks left empty; takes a Function or a SeqExpr (TVM's `remove_all_unused`)."""
    seq = func.body if isinstance(func, rx.Function) else func
    while True:
        used = _uses(seq)
        blocks = tuple(replace(b, bindings=tuple(
            x for x in b.bindings if _needed(x, used, isinstance(b, rx.DataflowBlock))))
            for b in seq.blocks)
        if all(len(a.bindings) == len(b.bindings) for a, b in zip(blocks, seq.blocks)):
            seq = replace(seq, blocks=tuple(b for b in blocks if b.bindings))
            return replace(func, body=seq) if isinstance(func, rx.Function) else seq
        seq = replace(seq, blocks=blocks)


def _reachable(mod: IRModule, entries: list[str]) -> set[str]:
    names = set(entries)
    todo = list(entries)
    while todo:
        f = mod[todo.pop()]
        refs: list[str] = []

        class _V(ExprVisitor):
            def visit_GlobalVarRef(self, g: rx.GlobalVarRef) -> None:
                refs.append(g.gvar.name_hint)

        if isinstance(f, rx.Function):
            _V().visit(f)
        elif isinstance(f, PrimFunc):  # a prim_func calling another (`Module.helper(a, b)`)
            refs += _tir_callees(f)
        for r in refs:
            if r not in names and r in mod:
                names.add(r)
                todo.append(r)
    return names


def _tir_callees(f: PrimFunc) -> list[str]:
    from ..tir.functor import post_order_visit

    found: list[str] = []

    def note(n: Any) -> None:
        op = getattr(n, "op", None)
        if isinstance(op, GlobalVar):
            found.append(op.name_hint)
        elif isinstance(op, str) and op.startswith("@"):  # how the TIR parser names them
            found.append(op[1:])

    post_order_visit(f.body, note)
    return found


def eliminate_dead_code(mod: IRModule, entries: list[str] | None = None,
                        keep_public_prim_funcs: bool = True) -> IRModule:
    """`mod` without unused pure bindings and without the functions that no entry reaches.
    Entries are `entries` and every function with a `global_symbol` (TVM keeps what other
    modules may link to); `keep_public_prim_funcs=False` lets kernels go that only relax
    functions used to call (what FuseTIR wants after fusing them away)."""
    mod = mod.map_functions(lambda gv, f: remove_unused(f) if isinstance(f, rx.Function)
                            else f)
    public = [gv.name_hint for gv, f in mod.items() if "global_symbol" in getattr(
        f, "attr_dict", {}) and (keep_public_prim_funcs or isinstance(f, rx.Function))
        or isinstance(f, rx.ExternFunc)]  # as TVM: extern functions are entries too
    keep = _reachable(mod, list(entries or []) + public)
    return IRModule({gv: f for gv, f in mod.items() if gv.name_hint in keep},
                    dict(mod.attrs), dict(mod.global_infos))


def DeadCodeElimination(entry_functions: list[str] | None = None) -> Pass:  # noqa: N802
    """Removes unused pure bindings, then the functions that neither an entry function nor a
    public function (one with a `global_symbol`) reaches."""
    return Pass(lambda mod, ctx: eliminate_dead_code(mod, entry_functions),
                "DeadCodeElimination")


def CanonicalizeBindings() -> Pass:  # noqa: N802
    """Drop bindings that only rename a value (transforms/canonicalize.py)."""
    from .canonicalize import canonicalize
    from .graph_rewrites import with_local_functions

    def canon(f: rx.Function) -> rx.Function:  # local functions are canonicalized too
        return canonicalize(with_local_functions(f, canon))

    return _function_pass("CanonicalizeBindings", canon)


def to_non_dataflow(func: rx.Function) -> rx.Function:
    mapping: dict[rx.Var, rx.Expr] = {}
    blocks = []
    for blk in func.body.blocks:
        bindings = []
        for b in blk.bindings:
            var = b.var
            if isinstance(var, rx.DataflowVar):
                var = rx.Var(var.name_hint, var.struct_info, var.span)
                mapping[b.var] = var
            bindings.append(replace(b, var=var, value=substitute_vars(b.value, mapping)))
        blocks.append(rx.BindingBlock(tuple(bindings)))
    body = substitute_vars(func.body.body, mapping)
    return replace(func, body=replace(func.body, blocks=tuple(blocks), body=body))


def ToNonDataflow() -> Pass:  # noqa: N802
    return _function_pass("ToNonDataflow", to_non_dataflow)


def _identity_pass(name: str) -> Pass:
    return Pass(lambda mod, ctx: mod, name)


def KillAfterLastUse() -> Pass:  # noqa: N802
    """Marks functions so the lowering drops each register after its last use."""
    return _function_pass("KillAfterLastUse", lambda f: f.with_attr("relax.kill_dead", True))


def Normalize() -> Pass:  # noqa: N802
    """A-normal form, as the parser builds it (transforms/normalize.py)."""
    from .normalize import normalize

    return _function_pass("Normalize", normalize)


from .fold_constant import FoldConstant  # noqa: E402,F401 (its old home; pipeline.py imports it)
from .lambda_lift import LambdaLift  # noqa: E402,F401 (its old home)
