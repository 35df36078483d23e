"""FuseOpsByPattern: group what a pattern matches into a composite function (BYOC, step 1).

For each binding, last to first, the patterns are tried in priority order (the first listed
wins). A match becomes a group when none of its bindings is taken yet and every value it
computes inside is used only inside it (only the root's value escapes). The group's bindings
move into a new module function with attributes `Composite` (the pattern name) and `Primitive`;
with `annotate_codegen=True` it also gets `Codegen` (the pattern name's prefix before the first
dot) and `global_symbol`. The root binding then calls that function.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..ir.dpl import DFPattern, bindings_of
from ..ir.expr import (
    Call, Constant, DataflowBlock, DataflowVar, Expr, Function, GlobalVarRef, Op, SeqExpr, Var,
    VarBinding,
)
from ..ir.functor import substitute_vars, var_use_counts
from ..ir.module import GlobalVar, IRModule, fresh_name
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
    """Make composite functions from pattern matches in every graph function (or the entries)."""
    table = [_as_fusion_pattern(p) for p in patterns]

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        fuser = _Fuser(mod, table, bind_constants, annotate_codegen)
        for gv, func in list(mod.items()):
            if not isinstance(func, Function) or "Composite" in func.attr_dict:
                continue
            if entry_functions and gv.name_hint not in entry_functions:
                continue
            fused = fuser.fuse_function(func)  # adds composites to fuser.mod: call it first
            fuser.mod = fuser.mod.with_function(gv, fused)
        return fuser.mod

    return Pass(run, "FuseOpsByPattern")


class _Fuser:
    def __init__(self, mod: IRModule, table: list[FusionPattern], bind_constants: bool,
                 annotate_codegen: bool) -> None:
        self.mod, self.table = mod, table
        self.bind_constants, self.annotate_codegen = bind_constants, annotate_codegen

    def fuse_function(self, func: Function) -> Function:
        var2val = bindings_of(func)
        uses = var_use_counts(func.body)
        blocks = []
        for block in func.body.blocks:
            if isinstance(block, DataflowBlock):
                block = self.fuse_block(block, var2val, uses)
            blocks.append(block)
        return replace(func, body=replace(func.body, blocks=tuple(blocks)))

    def fuse_block(self, block: DataflowBlock, var2val: dict[Var, Expr],
                   uses: dict[Var, int]) -> DataflowBlock:
        in_block = {b.var: b for b in block.bindings if isinstance(b, VarBinding)}
        taken: set[Var] = set()
        rewrites: dict[Var, Expr] = {}
        for b in reversed(block.bindings):
            if not isinstance(b, VarBinding) or b.var in taken:
                continue
            for fp in self.table:
                group = self.try_group(fp, b, var2val, in_block, taken, uses)
                if group is not None:
                    taken.update(group)
                    rewrites[b.var] = self.outline(fp, [in_block[v] for v in group
                                                        if v in in_block], b)
                    break
        bindings = []
        for b in block.bindings:
            if b.var in rewrites:
                bindings.append(replace(b, value=rewrites[b.var]))
            elif b.var not in taken:
                bindings.append(b)
        return replace(block, bindings=tuple(bindings))

    def try_group(self, fp: FusionPattern, root: VarBinding, var2val: dict[Var, Expr],
                  in_block: dict[Var, VarBinding], taken: set[Var], uses: dict[Var, int]
                  ) -> list[Var] | None:
        matches = fp.pattern.extract_matched_expr(root.value, var2val)
        if matches is None:
            return None
        matched_calls = {id(e) for e in matches.values() if isinstance(e, Call)}
        group = [v for v, b in in_block.items() if id(b.value) in matched_calls]
        if root.var not in group or any(v in taken for v in group):
            return None
        inner_uses = var_use_counts(*[in_block[v].value for v in group])
        for v in group:  # values computed inside may not escape, except the root's
            if v is not root.var and uses.get(v, 0) != inner_uses.get(v, 0):
                return None
        if fp.check is not None and not fp.check(_CheckContext(matches, fp, root)):
            return None
        return group

    def outline(self, fp: FusionPattern, group: list[VarBinding], root: VarBinding) -> Expr:
        inner = {b.var for b in group}
        inputs: list[Expr] = []
        for b in group:
            for e in _operands(b.value):
                keep_inside = isinstance(e, Constant) and self.bind_constants
                if e not in inner and not keep_inside and not any(e is i for i in inputs):
                    inputs.append(e)
        params = [Var(_param_name(e, i), e.struct_info) for i, e in enumerate(inputs)]
        mapping: dict[Var, Expr] = {e: p for e, p in zip(inputs, params) if isinstance(e, Var)}
        new_bindings = []
        for b in group:
            value = _substitute_inputs(b.value, inputs, params, mapping)
            new_var = (Var if b is root else DataflowVar)(b.var.name_hint, b.var.struct_info)
            mapping[b.var] = new_var
            new_bindings.append(VarBinding(new_var, value))
        body = SeqExpr((DataflowBlock(tuple(new_bindings)),), mapping[root.var])
        name = self.fresh_name("fused_" + "_".join(_op_names(group)))
        attrs: tuple[tuple[str, Any], ...] = (("Composite", fp.name), ("Primitive", True))
        if self.annotate_codegen:
            attrs += (("Codegen", fp.name.split(".")[0]), ("global_symbol", name))
        func = Function(tuple(params), body, root.var.struct_info, True, attrs)
        gv = GlobalVar(name)
        self.mod = self.mod.with_function(gv, func)
        return Call(GlobalVarRef(gv, func.struct_info), tuple(inputs),
                    struct_info=root.var.struct_info)

    def fresh_name(self, base: str) -> str:
        return fresh_name(base, self.mod)


@dataclass
class _CheckContext:
    """What a pattern's `check` callback sees (TVM's PatternCheckContext, in part)."""

    annotated_expr: dict[DFPattern, Expr]
    pattern: FusionPattern
    root: VarBinding

    @property
    def matched_expr(self) -> Expr:
        return self.root.value


def _operands(e: Expr) -> list[Expr]:
    if isinstance(e, Call):
        out: list[Expr] = []
        for a in e.args:
            out.extend(_operands(a) if not isinstance(a, (Var, Constant)) else [a])
        return out
    fields = getattr(e, "fields", None)
    if fields is not None:
        return [x for f in fields for x in ([f] if isinstance(f, (Var, Constant))
                                              else _operands(f))]
    return []


def _substitute_inputs(value: Expr, inputs: list[Expr], params: list[Var],
                       mapping: dict[Var, Expr]) -> Expr:
    from ..ir.functor import ExprMutator

    consts = {id(e): p for e, p in zip(inputs, params) if isinstance(e, Constant)}

    class _Sub(ExprMutator):
        def visit_Constant(self, c: Constant) -> Expr:  # noqa: N802
            return consts.get(id(c), c)

    return substitute_vars(_Sub().visit(value), mapping)


def _param_name(e: Expr, i: int) -> str:
    return e.name_hint if isinstance(e, Var) else f"param_{i}"


def _op_names(group: list[VarBinding]) -> list[str]:
    names = []
    for b in group:
        op = b.value.op if isinstance(b.value, Call) else None
        if isinstance(op, Op):
            names.append(op.name.replace(".", "_"))
    return names or ["group"]
