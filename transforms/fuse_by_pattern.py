"""FuseOpsByPattern: group what a pattern matches into a composite function (BYOC, step 1).

As TVM does it: the patterns run one after the other, the first listed first. For each, every
call binding the pattern matches (and its check accepts) takes the calls the match went
through into its group unless one is in an earlier match; the groups then become functions
with attributes `Composite` (the pattern name) and `Primitive` (grouped_functions.py: the
values a group uses are its parameters, constants lifted only when `bind_constants=False`,
values used after it its results). With `annotate_codegen=True` each new composite also gets
`Codegen` (the pattern name's prefix before the first dot) and `global_symbol`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..ir.dpl import CallPattern, DFPattern, TupleGetItemPattern
from ..ir.expr import (
    BindingBlock, Call, DataflowBlock, Expr, Function, GlobalVarRef, If, SeqExpr, Var,
    VarBinding,
)
from ..ir.functor import ExprMutator, var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.ops.base import OPAQUE
from .graph_partition import Group
from .grouped_functions import group_functions
from .merge_composite import fresh_copy
from .pass_infra import Pass, PassContext


@dataclass
class FusionPattern:
    """A named pattern, optionally with sub-patterns to annotate and a check on the match."""

    name: str
    pattern: DFPattern
    annotation_patterns: dict[str, DFPattern] = field(default_factory=dict)
    check: Callable[[Any], bool] | None = None


def _as_fusion_pattern(p: Any) -> FusionPattern:
    if isinstance(p, FusionPattern):
        return p
    if isinstance(p, (tuple, list)) and len(p) >= 2:
        ann = p[2] if len(p) > 2 else {}
        check = p[3] if len(p) > 3 else None
        return FusionPattern(p[0], p[1], dict(ann or {}), check)
    raise TypeError(f"a fusion pattern is (name, pattern[, annotations, check]), got {p!r}")


def FuseOpsByPattern(patterns: list[Any], bind_constants: bool = True,  # noqa: N802
                     annotate_codegen: bool = False,
                     entry_functions: list[str] | None = None) -> Pass:
    """Make composite functions from pattern matches in every graph function (or the entries):
    one pattern after the other, each over the module the previous one left."""
    table = [_as_fusion_pattern(p) for p in patterns]

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        before = set(mod.names())
        for fp in table:
            group_of: dict[int, Group] = {}
            for gv, func in mod.items():
                if _is_entry(gv.name_hint, func, entry_functions):
                    _Partitioner(fp, group_of).visit_function(func)
            mod = group_functions(mod, group_of, lift_constants=not bind_constants,
                                  entries=[gv.name_hint for gv, f in mod.items()
                                           if _is_entry(gv.name_hint, f, entry_functions)])
        return _annotate_codegen(mod, before) if annotate_codegen else mod

    return Pass(run, "FuseOpsByPattern")


def _is_entry(name: str, func: Any, entries: list[str] | None) -> bool:
    if not isinstance(func, Function) or (entries and name not in entries):
        return False
    attrs = func.attr_dict
    return not (attrs.get("Primitive") or "Composite" in attrs or "Codegen" in attrs)


def _annotate_codegen(mod: IRModule, before: set[str]) -> IRModule:
    """Each new composite function is offloaded on its own, as TVM's CompositeFunctionAnnotator
    does: a public `<composite>_<backend>` function with `Codegen` calls it, inlined as a local
    function, in its place."""
    funcs = dict(mod.functions)
    renamed: dict[GlobalVar, GlobalVar] = {}
    for gv, f in mod.items():
        if gv.name_hint not in before and isinstance(f, Function) and "Composite" in f.attr_dict:
            backend = str(f.attr_dict["Composite"]).split(".")[0]
            name = f"{gv.name_hint}_{backend}"
            del funcs[gv]
            renamed[gv] = GlobalVar(name)
            funcs[renamed[gv]] = _offload_wrapper(f, backend, name)
    if not renamed:
        return mod
    out = IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return out.map_functions(lambda gv, f: _Retarget(renamed).visit(f)
                             if isinstance(f, Function) and gv not in renamed.values() else f)


def _offload_wrapper(composite: Function, backend: str, name: str) -> Function:
    params = tuple(Var(p.name_hint, p.struct_info) for p in composite.params)
    inner = fresh_copy(composite).without_attr("Primitive")
    fvar = Var("gv", inner.struct_info)
    result = Var("gv1", composite.ret_struct_info)
    call = Call(fvar, params, struct_info=composite.ret_struct_info)
    body = SeqExpr((BindingBlock((VarBinding(fvar, inner), VarBinding(result, call))),), result)
    return Function(params, body, composite.ret_struct_info, composite.is_pure,
                    (("Codegen", backend), ("global_symbol", name)))


class _Retarget(ExprMutator):
    """Calls of the composites now offloaded call their offload functions."""

    def __init__(self, renamed: dict[GlobalVar, GlobalVar]) -> None:
        self.renamed = renamed

    def visit_GlobalVarRef(self, r: GlobalVarRef) -> Expr:  # noqa: N802
        new = self.renamed.get(r.gvar)
        return r if new is None else GlobalVarRef(new, r.struct_info)


class _Partitioner:
    """One pattern over one function: each call binding the pattern matches (and its check
    accepts) takes the calls the match went through into its group, unless one of them is in
    another pattern match already (TVM's PatternBasedPartitioner)."""

    def __init__(self, fp: FusionPattern, group_of: dict[int, Group]) -> None:
        self.fp, self.group_of = fp, group_of
        self.bindings: dict[Var, Expr] = {}
        self.value_to_var: dict[int, Var] = {}
        self.members: dict[int, list[Var]] = {}  # id(group) -> the vars added to it
        self.usages: dict[Var, list[Var]] = {}

    def define(self, var: Var) -> None:
        if id(var) in self.group_of:
            raise ValueError(f"the variable {var.name_hint!r} is defined in more than one "
                             "place (the module is not in single-assignment form, e.g. two "
                             "functions share it); FuseOpsByPattern needs each defined once")
        g = Group(OPAQUE)
        self.group_of[id(var)] = g
        self.members[id(g)] = [var]

    def visit_function(self, func: Function) -> None:
        for p in func.params:
            self.define(p)
        self.visit_seq(func.body)

    def visit_seq(self, seq: SeqExpr) -> None:
        """The bindings of a sequence, and of the branches of each `If` in it (a dataflow
        block inside a branch fuses as one at the top level does)."""
        for block in seq.blocks:
            usages = _use_def(block) if isinstance(block, DataflowBlock) else {}
            for b in block.bindings:
                self.usages = usages
                if isinstance(b, VarBinding):
                    self.bindings[b.var] = b.value
                    self.value_to_var[id(b.value)] = b.var
                if isinstance(b, VarBinding) and isinstance(b.value, If):
                    self.visit_seq(b.value.true_branch)
                    self.visit_seq(b.value.false_branch)
                self.define(b.var)
                if isinstance(b, VarBinding) and isinstance(b.value, Call):
                    self.match(b)

    def match(self, b: VarBinding) -> None:
        matches = self.fp.pattern.extract_matched_expr(b.value, self.bindings)
        if matches is None:
            return
        ctx = PatternCheckContext(b.value, self.fp, matches, self.usages, self.value_to_var)
        if self.fp.check is not None and not self.fp.check(ctx):
            return
        inner = [m for pat, m in matches.items() if _joins(pat, m, b.value)]
        for m in inner:
            g = self.group_of.get(id(self.value_to_var.get(id(m))))
            if g is not None and g.root().num_nodes > 1 and not self.subsumed(g, matches):
                return  # part of an earlier match
        parent = self.group_of[id(b.var)].root()
        parent.attrs["Composite"] = self.fp.name
        for m in inner:
            var = self.value_to_var[id(m)]
            g = self.group_of[id(var)]
            if g is not parent:
                g.num_nodes -= 1
                g.parent = parent
                parent.num_nodes += 1
                self.members.setdefault(id(parent), []).append(var)

    def subsumed(self, g: Group, matches: dict[DFPattern, Expr]) -> bool:
        matched = {id(self.value_to_var.get(id(m))) for pat, m in matches.items()
                   if isinstance(pat, (CallPattern, TupleGetItemPattern))}
        return all(id(v) in matched for v in self.members.get(id(g), []))


def _joins(pat: DFPattern, match: Expr, root: Expr) -> bool:
    """A matched call other than the root, or a matched tuple item, joins the root's group."""
    return (isinstance(pat, CallPattern) and match is not root) or \
        isinstance(pat, TupleGetItemPattern)


def _use_def(block: DataflowBlock) -> dict[Var, list[Var]]:
    users: dict[Var, list[Var]] = {b.var: [] for b in block.bindings}
    for b in block.bindings:
        for v in var_use_counts(b.value):
            if v in users and b.var not in users[v]:
                users[v].append(b.var)
    return users


class PatternCheckContext:
    """What a pattern's `check` callback sees (TVM's PatternCheckContext): the matched root
    call, the annotated sub-expressions by name, the bindings the match covers, who uses each
    variable of the block, and the variable each value is bound to."""

    def __init__(self, matched_expr: Expr, fp: FusionPattern, matches: dict[DFPattern, Expr],
                 var_usages: dict[Var, list[Var]], value_to_var: dict[int, Var]) -> None:
        self.matched_expr = matched_expr
        self.pattern = fp
        self.annotated_expr = {name: matches[p] for name, p in fp.annotation_patterns.items()
                               if p in matches}
        self.matched_bindings = {value_to_var[id(m)]: m for p, m in matches.items()
                                 if isinstance(p, (CallPattern, TupleGetItemPattern))
                                 and id(m) in value_to_var}
        self.var_usages = var_usages
        self.value_to_bound_var = _ByIdentity(value_to_var)


class _ByIdentity:
    """A read-only map from expressions (by identity) to the variables bound to them."""

    def __init__(self, table: dict[int, Var]) -> None:
        self._table = table

    def __getitem__(self, e: Expr) -> Var:
        return self._table[id(e)]

    def __contains__(self, e: object) -> bool:
        return id(e) in self._table

    def get(self, e: Expr, default: Any = None) -> Any:
        return self._table.get(id(e), default)


_CheckContext = PatternCheckContext  # the name this module used before
