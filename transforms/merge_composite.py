"""MergeCompositeFunctions (BYOC step 2), as TVM 0.27 does it.

Calls of composite functions (`Composite` = "<backend>.<pattern>") are grouped per backend: a
call joins the group of an argument's producer of the same backend unless another argument
depends on that group already, which would make the merged function and the rest of the graph
depend on each other (TVM's CompositeGroupsBuilder). Each group becomes one public function
named `fused_<composites>_<backend>` with the `Codegen` attribute (grouped_functions.py), in
which every composite is inlined as a local function (one per composite, bound where it is
first called) and called; the body is a plain binding block. Composites nothing calls any more
leave the module.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.module import GlobalVar, IRModule
from ..ir.ops.base import OPAQUE
from .graph_partition import Group
from .grouped_functions import group_functions
from .pass_infra import Pass, PassContext


def MergeCompositeFunctions() -> Pass:  # noqa: N802
    """Merge composite calls of one backend into `Codegen` functions (composites inlined)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        group_of: dict[int, Group] = {}
        entries = []
        for gv, func in mod.items():
            if isinstance(func, rx.Function) and _is_graph_function(func):
                _CompositeGrouper(mod, group_of).visit_function(func)
                entries.append(gv.name_hint)
        grouped = group_functions(mod, group_of, lift_constants=False, entries=entries)
        inlined = {gv: inline_composites(f, grouped)
                   if isinstance(f, rx.Function) and "Codegen" in f.attr_dict else f
                   for gv, f in grouped.functions.items()}
        out = IRModule(inlined, dict(grouped.attrs), dict(grouped.global_infos))
        return drop_uncalled_composites(out)

    return Pass(run, "MergeCompositeFunctions")


def _is_graph_function(func: rx.Function) -> bool:
    attrs = func.attr_dict
    return not (attrs.get("Primitive") or "Composite" in attrs or "Codegen" in attrs)


def backend_of_composite(mod: IRModule, op: Any) -> str | None:
    """The backend prefix of the composite function `op` calls, or None."""
    if isinstance(op, rx.GlobalVarRef):
        callee = mod.functions.get(op.gvar)
        if isinstance(callee, rx.Function) and "Composite" in callee.attr_dict:
            return str(callee.attr_dict["Composite"]).split(".")[0]
    return None


class _CompositeGrouper:
    """Union-find groups over one function's dataflow bindings, with the groups each group
    depends on (transitively), kept for root groups only."""

    def __init__(self, mod: IRModule, group_of: dict[int, Group]) -> None:
        self.mod, self.group_of = mod, group_of
        self.deps: dict[int, set[Group]] = {}

    def visit_function(self, func: rx.Function) -> None:
        for p in func.params:
            self.group_of[id(p)] = Group(OPAQUE)
        escaping = _wholly_used(func)
        for block in func.body.blocks:
            for b in block.bindings:
                value = b.value
                group = None
                if isinstance(block, rx.DataflowBlock):
                    if isinstance(value, rx.Call):
                        group = self.visit_call(value)
                    else:
                        group = self.transparent_group(value, escaping)
                if group is None:
                    group = Group(OPAQUE)
                    self.add_dependencies(group, [value])
                self.group_of[id(b.var)] = group

    def transparent_group(self, value: Any, escaping: set[int]) -> Group | None:
        """The offloaded group a value that only moves its results around joins: an alias of
        a variable, a projection of a tuple that never leaves as a whole, a tuple of one
        group's values (TVM 0.27 keeps such projections inside the region)."""
        if isinstance(value, rx.Var):
            return self.root_of(value)
        if isinstance(value, rx.TupleGetItem) and isinstance(value.tuple_value, rx.Var) \
                and id(value.tuple_value) not in escaping:
            g = self.root_of(value.tuple_value)
            return g if g is not None and "Codegen" in g.attrs else None
        if isinstance(value, rx.Tuple) and value.fields and \
                all(isinstance(f, rx.Var) for f in value.fields):
            roots = {id(self.root_of(f)): self.root_of(f) for f in value.fields}
            g = next(iter(roots.values()))
            if len(roots) == 1 and g is not None and "Codegen" in g.attrs:
                return g
        return None

    def root_of(self, e: Any) -> Group | None:
        g = self.group_of.get(id(e))
        return None if g is None else g.root()

    def visit_call(self, call: rx.Call) -> Group:
        backend = backend_of_composite(self.mod, call.op)
        merge: list[Group] = []
        if backend is not None:
            used = _vars_used(call.args)
            parent_deps = {d for v in used for d in self.deps.get(id(self.root_of(v)), ())}
            for v in used:
                g = self.root_of(v)
                if g is not None and g.attrs.get("Codegen") == backend and \
                        g not in parent_deps and g not in merge:
                    merge.append(g)
        if not merge:
            group = Group(OPAQUE)
            if backend is not None:
                group.attrs["Codegen"] = backend
        else:
            group = merge[0]
            group.num_nodes += 1
            for other in merge[1:]:
                self.merge(other, group)
        self.add_dependencies(group, list(call.args))
        return group

    def merge(self, src: Group, dst: Group) -> None:
        src, dst = src.root(), dst.root()
        if src is dst:
            return
        src.parent = dst
        dst.num_nodes += src.num_nodes
        moved = self.deps.pop(id(src), set())
        self.deps.setdefault(id(dst), set()).update(moved)
        for deps in self.deps.values():
            if src in deps:
                deps.discard(src)
                deps.add(dst)
        self.deps[id(dst)].discard(dst)

    def add_dependencies(self, group: Group, args: list[Any]) -> None:
        root = group.root()
        mine = self.deps.setdefault(id(root), set())
        for v in _vars_used(args):
            g = self.root_of(v)
            if g is None or g is root:
                continue
            mine.add(g)
            mine.update(self.deps.get(id(g), ()))
        mine.discard(root)


def _wholly_used(func: rx.Function) -> set[int]:
    """The variables used other than through a projection or an alias (of one that is not
    wholly used itself): those whose whole value leaves the binding that made it."""
    out: set[int] = set()

    class _Uses(ExprVisitor):
        def visit_Var(self, v: rx.Var) -> None:  # noqa: N802
            out.add(id(v))

        visit_DataflowVar = visit_Var

    aliases: list[tuple[rx.Var, rx.Var]] = []
    for block in func.body.blocks:
        for b in block.bindings:
            value = b.value
            if isinstance(value, rx.Var):
                aliases.append((b.var, value))
            elif isinstance(value, rx.TupleGetItem) and isinstance(value.tuple_value, rx.Var):
                continue
            else:
                _Uses().visit(value)
    _Uses().visit(func.body.body)
    for var, source in reversed(aliases):
        if id(var) in out:
            out.add(id(source))
    return out


def _vars_used(exprs: list[Any]) -> list[rx.Var]:
    """The variables the expressions read, each once, in first-use order."""
    out: list[rx.Var] = []

    class _Vars(ExprVisitor):
        def visit_Var(self, v: rx.Var) -> None:  # noqa: N802
            if not any(v is o for o in out):
                out.append(v)

        visit_DataflowVar = visit_Var

    for e in exprs:
        _Vars().visit(e)
    return out


def inline_composites(func: rx.Function, mod: IRModule) -> rx.Function:
    """`func` (a `Codegen` function) with each composite it calls bound as a local function
    (fresh variables, no `Primitive`) at its first call, and its body one plain block."""
    local: dict[GlobalVar, rx.Var] = {}
    sub: dict[int, rx.Expr] = {}
    out: list[Any] = []
    for block in func.body.blocks:
        for b in block.bindings:
            value = _Substitute(sub).visit(b.value)
            if isinstance(value, rx.Call) and backend_of_composite(mod, value.op) is not None:
                gvar = value.op.gvar  # type: ignore[attr-defined]
                if gvar not in local:
                    composite = fresh_copy(mod.functions[gvar]).without_attr("Primitive")
                    local[gvar] = rx.Var("lv", composite.struct_info)
                    out.append(rx.VarBinding(local[gvar], composite))
                value = replace(value, op=local[gvar])
            var = rx.Var(b.var.name_hint, b.var.struct_info)
            sub[id(b.var)] = var
            if isinstance(b, rx.MatchCast):
                out.append(replace(b, var=var, value=value))
            else:
                out.append(rx.VarBinding(var, value))
    body = _Substitute(sub).visit(func.body.body)
    blocks = (rx.BindingBlock(tuple(out)),) if out else ()
    return replace(func, body=rx.SeqExpr(blocks, body))


class _Substitute(ExprMutator):
    def __init__(self, sub: dict[int, rx.Expr]) -> None:
        self.sub = sub

    def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
        return self.sub.get(id(v), v)

    visit_DataflowVar = visit_Var


def fresh_copy(func: rx.Function) -> rx.Function:
    """`func` with every parameter and bound variable replaced by a new one of the same name
    (so that two copies of one function never share a variable definition)."""
    sub: dict[int, rx.Expr] = {}
    params = []
    for p in func.params:
        sub[id(p)] = new = type(p)(p.name_hint, p.struct_info)
        params.append(new)
    renamer = _Renamer(sub)
    return replace(func, params=tuple(params), body=renamer.visit(func.body))


class _Renamer(_Substitute):
    def visit_binding(self, b: Any) -> Any:
        value = self.visit(b.value)
        self.sub[id(b.var)] = var = type(b.var)(b.var.name_hint, b.var.struct_info)
        return replace(b, var=var, value=value)


def drop_uncalled_composites(mod: IRModule) -> IRModule:
    """`mod` without the composite functions no other function refers to."""
    used: set[GlobalVar] = set()

    class _Refs(ExprVisitor):
        def visit_GlobalVarRef(self, r: rx.GlobalVarRef) -> None:  # noqa: N802
            used.add(r.gvar)

    for f in mod.functions.values():
        if isinstance(f, rx.Function) and "Composite" not in f.attr_dict:
            _Refs().visit(f)
    keep = {gv: f for gv, f in mod.functions.items()
            if not (isinstance(f, rx.Function) and "Composite" in f.attr_dict) or gv in used}
    return IRModule(keep, dict(mod.attrs), dict(mod.global_infos))


__all__ = ["MergeCompositeFunctions", "backend_of_composite", "drop_uncalled_composites",
           "fresh_copy", "inline_composites"]
