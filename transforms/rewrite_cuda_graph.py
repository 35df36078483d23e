"""RewriteCUDAGraph (TVM's pass of that name): after memory planning, lift what a CUDA graph can
replay out of each function. Runs only with `relax.backend.use_cuda_graph` set in the
PassContext's config.

A value is static when it depends on nothing that changes between calls: constants, the
function's fixed parameters (those after `num_input`), storages of constant size, and what is
computed from static values only. Static `alloc_storage`s move into one `cuda_graph_alloc`
function that `vm.builtin.cuda_graph.get_cached_alloc` runs once; the functions of a module
share it, each storage taking a slot by its rank in size within its memory scope. A run of
static bindings that starts at a kernel launch (a prim_func call, or a packed function other
than the VM's own builtins) becomes a capture function `<func>_cuda_graph_capture`, run by
`vm.builtin.cuda_graph.run_or_capture`; it takes the values it reads from before it and
returns those read after it. A binding that is not static ends the run. A value of symbolic shape
is static when its dims are: those the static parameters define, and those the function lists in
`relax.rewrite_cuda_graph.capture_symbolic_vars`; a capture over such values also takes the dims
(`shape_expr`), and `run_or_capture` keys its graphs by them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.op import Op
from ..tir import expr as tx
from ..ir.type_analysis import tir_vars_in_type
from ..tir.function import PrimFunc, free_vars
from .bind_symbolic import renew_symbolic_vars
from .pass_infra import Pass, PassContext

_ALLOC_STORAGE = "relax.memory.alloc_storage"
_BUILTIN_ALLOC_TENSOR = "relax.builtin.alloc_tensor"
_FORCE_PURE = (("relax.force_pure", True),)


@dataclass
class _Region:
    """Bindings lifted into one function, with what they read from and give back."""

    bindings: list[Any] = field(default_factory=list)
    inputs: list[rx.Var] = field(default_factory=list)
    outputs: list[rx.Var] = field(default_factory=list)

    def add_input(self, v: rx.Var) -> None:
        if not any(v is x for x in self.inputs):
            self.inputs.append(v)

    def add_output(self, v: rx.Var) -> None:
        if not any(v is x for x in self.outputs):
            self.outputs.append(v)


class _Planner:
    """Which bindings of one function are static, and the regions they are lifted into."""

    def __init__(self, mod: IRModule, func: rx.Function) -> None:
        self.mod = mod
        self.static: set[int] = set()
        num_input = func.attr_dict.get("num_input")
        if num_input is not None:
            self.static.update(id(p) for p in func.params[int(num_input):])
        self.symbolic = _capturable_dims(func, num_input)
        self.alloc = _Region()
        self.captures: list[_Region] = []
        self.region_of: dict[int, _Region] = {}
        self.current: _Region | None = None

    def plan(self, func: rx.Function) -> None:
        self.escaping = _returned_storages(func)
        for block in func.body.blocks:
            self.current = None
            for b in block.bindings:
                self.visit(b)
            self.end()
        self.mark_outputs(_vars(func.body.body))

    def visit(self, b: Any) -> None:
        value = b.value if isinstance(b, rx.VarBinding) else None
        if isinstance(value, rx.Call):
            self.visit_call(b, value)
            return
        if isinstance(value, rx.Constant):
            self.add(b)
            return
        if isinstance(value, (rx.Var, rx.Tuple, rx.TupleGetItem)):
            used = _vars(value)
            if self.is_static(value):
                self.add(b)
                self.mark_inputs(used)
            else:
                self.end()
            self.mark_outputs(used)
            return
        self.end()
        self.mark_outputs(_vars(value) if value is not None else [])

    def visit_call(self, b: Any, call: rx.Call) -> None:
        name = call.op.name if isinstance(call.op, Op) else None
        if name == _ALLOC_STORAGE:
            if _constant_size(call) and id(b.var) not in self.escaping:
                self.alloc.bindings.append(b)
                self.region_of[id(b.var)] = self.alloc
                self.static.add(id(b.var))
            return
        if name == _BUILTIN_ALLOC_TENSOR:
            return
        used = _vars(list(call.args))
        callee = self.mod.functions.get(call.op.gvar) if isinstance(call.op, rx.GlobalVarRef) \
            else None
        prim = isinstance(callee, PrimFunc)
        static = all(self.is_static(a) for a in call.args) and not (
            isinstance(call.op, rx.GlobalVarRef) and not prim) and not (
            isinstance(call.op, rx.ExternFunc) and call.op.global_symbol.startswith("vm.builtin"))
        if static:
            if prim or isinstance(call.op, rx.ExternFunc):  # a kernel launch starts a region
                if self.current is None:
                    self.current = _Region()
                    self.captures.append(self.current)
            self.add(b)
            self.mark_inputs(used)
        else:
            self.end()
        self.mark_outputs(used)

    def add(self, b: Any) -> None:
        self.static.add(id(b.var))
        if self.current is not None:
            self.current.bindings.append(b)
            self.region_of[id(b.var)] = self.current

    def end(self) -> None:
        self.current = None

    def mark_inputs(self, used: list[rx.Var]) -> None:
        if self.current is None:
            return
        for v in used:
            if self.region_of.get(id(v)) is not self.current:
                self.current.add_input(v)

    def mark_outputs(self, used: list[rx.Var]) -> None:
        for v in used:
            region = self.region_of.get(id(v))
            if region is not None and region is not self.current and region is not self.alloc:
                region.add_output(v)

    def is_static(self, e: Any) -> bool:
        if isinstance(e, (rx.Constant, rx.DataTypeImm, rx.StringImm, rx.GlobalVarRef)):
            return True
        if isinstance(e, rx.PrimValue):
            return isinstance(e.value, (tx.IntImm, tx.FloatImm)) or (
                e.value.dtype.startswith("int") and self.known(e.value))
        if isinstance(e, rx.ShapeExpr):
            return all(self.known(d) for d in e.values)
        if isinstance(e, rx.Tuple):
            return all(self.is_static(f) for f in e.fields)
        if isinstance(e, rx.TupleGetItem):
            return self.is_static(e.tuple_value)
        if isinstance(e, rx.Var):
            return id(e) in self.static and all(
                id(v) in self.symbolic for v in tir_vars_in_type(e.struct_info))
        return False

    def known(self, dim: Any) -> bool:
        """A dim a captured graph may depend on: a constant, or symbolic dims it is
        re-captured for (see _capturable_dims)."""
        return all(id(v) in self.symbolic for v in free_vars(dim))


def _capturable_dims(func: rx.Function, num_input: Any) -> set[int]:
    """Symbolic dims a graph may be captured for, once per value: those the function lists
    in `relax.rewrite_cuda_graph.capture_symbolic_vars` and those its static parameters
    (after `num_input`) define."""
    named = {str(n) for n in func.attr_dict.get("relax.rewrite_cuda_graph.capture_symbolic_vars",
                                                ())}
    dims: set[int] = set()
    for i, p in enumerate(func.params):
        static = num_input is not None and i >= int(num_input)
        dims.update(id(v) for v in tir_vars_in_type(p.struct_info)
                    if static or v.name in named)
    return dims


def _returned_storages(func: rx.Function) -> set[int]:
    """The storages of tensors the function returns: a replayed graph would overwrite them
    while the caller still holds them, so they stay allocated per call."""
    value_of = {id(b.var): b.value for blk in func.body.blocks for b in blk.bindings
                if isinstance(b, rx.VarBinding)}
    out: set[int] = set()
    todo, seen = _vars(func.body.body), set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        value = value_of.get(id(v))
        if isinstance(value, rx.Call) and isinstance(value.op, Op) and \
                value.op.name == "relax.memory.alloc_tensor" and isinstance(value.args[0], rx.Var):
            out.add(id(value.args[0]))
        elif isinstance(value, (rx.Var, rx.Tuple, rx.TupleGetItem)):
            todo.extend(_vars(value))
    return out


def _constant_size(call: rx.Call) -> bool:
    size = call.args[0]
    return isinstance(size, rx.ShapeExpr) and all(isinstance(d, tx.IntImm) for d in size.values)


def _symbolic_dims(values: list[rx.Var]) -> list[tx.Var]:
    dims: list[tx.Var] = []
    for v in values:
        for d in tir_vars_in_type(v.struct_info):
            if not any(d is x for x in dims):
                dims.append(d)
    return dims


def _vars(e: Any) -> list[rx.Var]:
    """The variables `e` reads, each once, in order."""
    seen: list[rx.Var] = []
    for v in var_use_counts(*(e if isinstance(e, list) else [e])):
        if not any(v is s for s in seen):
            seen.append(v)
    return seen


class _Rewriter:
    """Lifts one function's planned regions into new functions and calls them in place."""

    def __init__(self, names: set[str], graph_index: list[int]) -> None:
        self.names = names
        self.graph_index = graph_index
        self.added: list[tuple[GlobalVar, rx.Function]] = []
        self.slot_of: dict[int, int] = {}

    def lift(self, func: rx.Function, name: str, plan: _Planner) -> rx.Function:
        first_of: set[int] = set()
        lifted: set[int] = set()
        if plan.alloc.bindings:
            first_of.add(id(plan.alloc.bindings[0].var))
        last_of: dict[int, _Region] = {}
        for region in plan.captures:
            # NOTE: called where the region ends: a storage it reads may be bound inside it
            last_of[id(region.bindings[-1].var)] = region
            lifted.update(id(b.var) for b in region.bindings)
        alloc_items = {id(b.var): self.slot_of[id(b.var)] for b in plan.alloc.bindings}
        sub: dict[int, rx.Expr] = {}
        alloc_var: rx.Var | None = None
        blocks = []
        for block in func.body.blocks:
            out: list[Any] = []
            for b in block.bindings:
                if id(b.var) in first_of:
                    alloc_var = self.emit_alloc(out)
                if id(b.var) in alloc_items:
                    item = rx.TupleGetItem(alloc_var, alloc_items[id(b.var)], b.var.struct_info)
                    sub[id(b.var)] = new = type(b.var)(b.var.name_hint, b.var.struct_info)
                    out.append(rx.VarBinding(new, item))  # the storage's own var moved out
                elif id(b.var) not in lifted:
                    out.append(_substituted(b, sub))
                if id(b.var) in last_of:
                    self.emit_capture(name, last_of[id(b.var)], out, sub)
            blocks.append(replace(block, bindings=tuple(out)))
        body = _subst(func.body.body, sub)
        return replace(func, body=replace(func.body, blocks=tuple(blocks), body=body))

    def make_alloc_function(self, slots: list[Any]) -> None:
        """One `cuda_graph_alloc` for the whole module: its storages are the slots."""
        storages = [b.var for b in slots]
        ret = si.TupleStructInfo(tuple(v.struct_info for v in storages))
        result = rx.Var("gv", ret)
        body = rx.SeqExpr((rx.BindingBlock((*slots, rx.VarBinding(
            result, _tuple(storages)))),), result)
        self.alloc_ret = ret
        self.alloc_gv = self.add_function("cuda_graph_alloc",
                                          rx.Function((), body, ret, True, _FORCE_PURE))

    def emit_alloc(self, out: list[Any]) -> rx.Var:
        call = _builtin("vm.builtin.cuda_graph.get_cached_alloc",
                        [rx.GlobalVarRef(self.alloc_gv), _prim(0)], self.alloc_ret)
        var = rx.Var("gv", self.alloc_ret)
        out.append(rx.VarBinding(var, call))
        return var

    def emit_capture(self, name: str, region: _Region, out: list[Any],
                     sub: dict[int, rx.Expr]) -> None:
        params = [rx.Var(v.name_hint, v.struct_info) for v in region.inputs]
        inner = {id(v): p for v, p in zip(region.inputs, params)}
        bindings = [_substituted(b, inner) for b in region.bindings]
        # the symbolic dims the graph was captured for: passed (and a replay keyed) by value
        dims = _symbolic_dims(region.inputs)
        shape = rx.ShapeExpr(tuple(dims), si.ShapeStructInfo(tuple(dims))) if dims else None
        if shape is not None:
            params.append(rx.Var("shape_expr", shape.struct_info))
        ret = si.TupleStructInfo(tuple(v.struct_info for v in region.outputs))
        result = rx.Var("gv", ret)
        # nothing read after the region: TVM returns a fresh empty tuple, not the bound one
        body = rx.SeqExpr((rx.BindingBlock((*bindings, rx.VarBinding(
            result, _tuple(region.outputs)))),), result if region.outputs else _tuple([]))
        fn = renew_symbolic_vars(rx.Function(tuple(params), body, ret, True, _FORCE_PURE))
        gv = self.add_function(f"{name}_cuda_graph_capture", fn)
        index = self.graph_index[0]
        self.graph_index[0] += 1
        args = _tuple([_subst(v, sub) for v in region.inputs] + ([shape] if shape else []))
        call = _builtin("vm.builtin.cuda_graph.run_or_capture",
                        [rx.GlobalVarRef(gv), args, _prim(index)] + ([shape] if shape else []),
                        ret)
        var = rx.Var("gv", ret)
        out.append(rx.VarBinding(var, call))
        index_of = {id(v): i for i, v in enumerate(region.outputs)}
        for b in region.bindings:  # NOTE: in binding order; the tuple is in order of first use
            if id(b.var) in index_of:
                v = b.var
                new = type(v)(v.name_hint, v.struct_info)
                out.append(rx.VarBinding(new, rx.TupleGetItem(var, index_of[id(v)],
                                                              v.struct_info)))
                sub[id(v)] = new

    def add_function(self, base: str, fn: rx.Function) -> GlobalVar:
        gv = GlobalVar(fresh_name(base, self.names))
        self.names.add(gv.name_hint)
        self.added.append((gv, fn))
        return gv


def _builtin(name: str, args: list[Any], ret: si.StructInfo) -> rx.Call:
    from ..ir.ops.runtime_ops import call_builtin_with_ctx

    return call_builtin_with_ctx(name, _tuple(args), ty_args=(ret,))


def _prim(n: int) -> rx.PrimValue:
    from ..ir.ops.base import as_expr

    return as_expr(n)  # type: ignore[return-value]


def _tuple(fields: list[Any]) -> rx.Tuple:
    return rx.Tuple(tuple(fields), si.TupleStructInfo(
        tuple(f.struct_info or si.ObjectStructInfo() for f in fields)))


def _subst(e: Any, sub: dict[int, rx.Expr]) -> Any:
    if not sub:
        return e
    from ..ir.functor import ExprMutator

    class _S(ExprMutator):
        def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
            return sub.get(id(v), v)

        visit_DataflowVar = visit_Var

    return _S().visit(e)


def _substituted(b: Any, sub: dict[int, rx.Expr]) -> Any:
    value = _subst(b.value, sub)
    return b if value is b.value else replace(b, value=value)


def _storage_slots(per_function: list[list[Any]]) -> tuple[list[Any], dict[int, int]]:
    """The storages of all functions as shared slots, as TVM merges the alloc functions: per
    memory scope, each function's storages from largest to smallest take slots 0, 1, ...;
    a slot is as large as its largest storage. Returns the slots (a binding each, the
    largest's) and each storage's slot."""
    scopes: dict[str, list[list[Any]]] = {}
    for bindings in per_function:
        mine: dict[str, list[Any]] = {}
        for b in bindings:
            mine.setdefault(_scope(b.value), []).append(b)
        for scope, group in mine.items():
            scopes.setdefault(scope, []).append(sorted(group, key=lambda b: -_size(b.value)))
    slots: list[Any] = []
    slot_of: dict[int, int] = {}
    for ranked in scopes.values():
        for rank in range(max(len(r) for r in ranked)):
            members = [r[rank] for r in ranked if len(r) > rank]
            slots.append(max(members, key=lambda b: _size(b.value)))
            slot_of.update({id(b.var): len(slots) - 1 for b in members})
    return slots, slot_of


def _scope(call: rx.Call) -> str:
    scope = call.args[2]
    return str(scope.value) if isinstance(scope, rx.StringImm) else "global"


def _size(call: rx.Call) -> int:
    return int(call.args[0].values[0].value)  # type: ignore[attr-defined]


def rewrite_cuda_graph(mod: IRModule) -> IRModule:
    names = set(mod.names())
    rewriter = _Rewriter(names, [0])
    funcs = dict(mod.functions)
    plans = []
    for gv, func in mod.functions.items():
        if isinstance(func, rx.Function):
            plan = _Planner(mod, func)
            plan.plan(func)
            if plan.alloc.bindings or plan.captures:
                plans.append((gv, func, plan))
    if not plans:
        return mod
    slots, rewriter.slot_of = _storage_slots([p.alloc.bindings for _, _, p in plans])
    if slots:
        rewriter.make_alloc_function(slots)
    for gv, func, plan in plans:
        funcs[gv] = rewriter.lift(func, gv.name_hint, plan)
    funcs.update(rewriter.added)
    return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))


def RewriteCUDAGraph() -> Pass:  # noqa: N802
    """Lift static allocations and kernel launches for CUDA graph capture (when enabled)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        if not ctx.config.get("relax.backend.use_cuda_graph", False):
            return mod
        return rewrite_cuda_graph(mod)

    return Pass(run, "RewriteCUDAGraph")


__all__ = ["RewriteCUDAGraph", "rewrite_cuda_graph"]
