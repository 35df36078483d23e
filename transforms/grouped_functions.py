"""Turn a grouping of bindings into grouped functions: the shared back half of FuseOps and
FuseOpsByPattern (TVM's OperatorFusor).

Every group of two or more bindings (or one carrying attributes, such as a pattern's
`Composite` name) becomes a private function. Its parameters are the values the group uses
from outside, in first-use order (constants too when they are lifted, named `param_<i>`; a
tuple only read through tuple-get-item is split into its used fields); it returns the values
used after the group, a tuple when there are several. The caller's block is re-emitted in
dependency order of groups, calling each function where its last binding was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.op import CALL_TIR, CALL_TIR_INPLACE
from ..ir.structural import structural_equal
from ..ir.usage_analysis import free_symbolic_vars
from ..tir import expr as tx
from ..vm.errors import TVMError
from .bind_symbolic import renew_symbolic_vars
from .graph_partition import Group


class FusionCycleError(TVMError, ValueError):
    """Two groups each use a value the other computes (TVM fails the same check)."""


class FunctionCreator:
    """Collects one group's bindings, parameters and outputs, then makes its function."""

    def __init__(self, lift_constants: bool, outer: dict[int, rx.Expr] | None = None) -> None:
        self.lift_constants = lift_constants
        self.outer = outer or {}  # id(var) -> its value, for the caller's bindings
        self.inlined: dict[int, rx.Expr] = {}
        self.bindings: list[Any] = []
        self.params: list[rx.Var] = []
        self.arguments: list[rx.Expr] = []
        self.defined: set[int] = set()
        self.outputs: list[rx.Var] = []
        self.name = "fused"
        self.n_const = 0
        self.partial_tuples: dict[int, list[int]] = {}  # tuple param -> indices it is read at
        self.function: rx.Function | None = None
        self.result_struct_info: Any = None

    def append(self, b: Any) -> None:
        value = b.value if isinstance(b, rx.VarBinding) else None
        if isinstance(value, rx.Call):
            if value.op in (CALL_TIR, CALL_TIR_INPLACE):
                self.name += "_" + value.args[0].gvar.name_hint  # type: ignore[attr-defined]
                for a in _fields(value.args[1]):
                    self.use(a)
            else:
                self.name += "_" + _callee_name(value.op)
                for a in value.args:
                    self.use(a)
                    if isinstance(a.struct_info, si.TupleStructInfo):
                        self.partial_tuples.pop(id(a), None)  # read whole
        elif isinstance(value, rx.TupleGetItem):
            self.use(value.tuple_value)
            if id(value.tuple_value) in self.partial_tuples:
                self.partial_tuples[id(value.tuple_value)].append(value.index)
        self.defined.add(id(b.var))
        if not isinstance(b.var, rx.DataflowVar):
            self.add_output(b.var)
        self.bindings.append(b)

    def add_output(self, var: rx.Var) -> int:
        for i, v in enumerate(self.outputs):
            if v is var:
                return i
        self.outputs.append(var)
        return len(self.outputs) - 1

    def use(self, e: rx.Expr) -> None:
        if any(a is e for a in self.arguments):
            return
        if isinstance(e, rx.Var) and id(e) in self.defined:
            return
        if isinstance(e, rx.Constant) and not self.lift_constants:
            return
        if isinstance(e, (rx.Tuple,)):
            for f in e.fields:
                self.use(f)
            return
        if isinstance(e, (rx.GlobalVarRef, rx.Op, rx.ExternFunc)) or _inlinable(e):
            return  # callees, and constant shapes and prim values, stay inside
        bound = self.bound_value(e)
        if bound is not None:
            self.inlined[id(e)] = bound  # a variable bound to a constant shape or value
            return
        if isinstance(e, rx.Var):
            name = e.name_hint
        else:
            name = f"param_{self.n_const}"
            self.n_const += 1
        self.arguments.append(e)
        self.params.append(rx.Var(name, e.struct_info))
        if isinstance(e.struct_info, si.TupleStructInfo):
            self.partial_tuples[id(e)] = []

    def bound_value(self, e: rx.Expr) -> rx.Expr | None:
        """The constant shape or prim value a variable of the caller is bound to, if any."""
        seen: set[int] = set()
        value: Any = e
        while isinstance(value, rx.Var) and id(value) in self.outer and id(value) not in seen:
            seen.add(id(value))
            value = self.outer[id(value)]
        return value if value is not e and _inlinable(value) else None

    def create(self, attrs: dict[str, Any]) -> None:
        items = self.split_partial_tuples()
        sub: dict[int, rx.Expr] = {id(a): p for a, p in zip(self.arguments, self.params)}
        sub.update(self.inlined)
        bindings: list[Any] = []
        for b in self.bindings:
            v = b.value
            if isinstance(v, rx.TupleGetItem) and (id(v.tuple_value), v.index) in items:
                sub[id(b.var)] = items[(id(v.tuple_value), v.index)]
                continue
            value = _substitute(v, sub)
            if any(o is b.var for o in self.outputs):
                var = rx.Var(b.var.name_hint, b.var.struct_info)
                sub[id(b.var)] = var
                b = replace(b, var=var)
            bindings.append(replace(b, value=value))
        if not self.outputs:
            return  # dead code: TVM asks for DeadCodeElimination first
        outs = [sub.get(id(v), v) for v in self.outputs]
        body: rx.Expr = outs[0] if len(outs) == 1 else rx.Tuple(tuple(outs))
        if "Codegen" not in attrs:  # an offloaded function is not one of ours to lower
            attrs = {**attrs, "Primitive": True}
        fn = self.make(bindings, body, attrs)
        free = free_symbolic_vars(fn)
        if free:
            self.params.append(rx.Var("tir_vars", si.ShapeStructInfo(tuple(free))))
            self.arguments.append(rx.ShapeExpr(tuple(free)))
            fn = self.make(bindings, body, attrs)
        self.result_struct_info = fn.ret_struct_info  # in the caller's symbolic dims
        self.function = renew_symbolic_vars(fn)

    def make(self, bindings: list[Any], body: rx.Expr, attrs: dict[str, Any]) -> rx.Function:
        blocks = (rx.DataflowBlock(tuple(bindings)),) if bindings else ()
        return rx.Function(tuple(self.params), rx.SeqExpr(blocks, body), body.struct_info,
                           attrs=tuple(attrs.items()))

    def split_partial_tuples(self) -> dict[tuple[int, int], rx.Var]:
        """A tuple parameter read only through tuple-get-item becomes one parameter per field
        read; returns (tuple, index) -> that parameter."""
        items: dict[tuple[int, int], rx.Var] = {}
        for key, indices in self.partial_tuples.items():
            if not indices:
                continue
            pos = next(i for i, a in enumerate(self.arguments) if id(a) == key)
            tup, param = self.arguments[pos], self.params[pos]
            fields = tup.struct_info.fields  # type: ignore[union-attr]
            args = [rx.TupleGetItem(tup, i, fields[i]) for i in indices]
            params = [rx.Var(f"{param.name_hint}_{i}", fields[i]) for i in indices]
            self.arguments[pos:pos + 1] = args
            self.params[pos:pos + 1] = params
            items.update({(key, i): p for i, p in zip(indices, params)})
        return items


def _inlinable(e: Any) -> bool:
    if isinstance(e, rx.PrimValue):
        return isinstance(e.value, (tx.IntImm, tx.FloatImm))
    if isinstance(e, rx.ShapeExpr):
        return all(isinstance(v, tx.IntImm) for v in e.values)
    return isinstance(e, rx.Tuple) and all(_inlinable(f) for f in e.fields)


def _callee_name(op: Any) -> str:
    if isinstance(op, rx.Op):
        return op.name.replace(".", "_")
    name = getattr(op, "name_hint", "call")
    return name[len("fused_"):] if name.startswith("fused_") else name


def _fields(e: rx.Expr) -> tuple[rx.Expr, ...]:
    return e.fields if isinstance(e, rx.Tuple) else (e,)


def _substitute(e: Any, sub: dict[int, rx.Expr]) -> Any:
    if id(e) in sub:
        return sub[id(e)]
    if isinstance(e, rx.Call):
        args = tuple(_substitute(a, sub) for a in e.args)
        return e if all(x is y for x, y in zip(args, e.args)) else replace(e, args=args)
    if isinstance(e, rx.Tuple):
        fields = tuple(_substitute(f, sub) for f in e.fields)
        return e if all(x is y for x, y in zip(fields, e.fields)) else replace(e, fields=fields)
    if isinstance(e, rx.TupleGetItem):
        t = _substitute(e.tuple_value, sub)
        return e if t is e.tuple_value else replace(e, tuple_value=t)
    return e


def _vars_in(e: Any) -> list[rx.Var]:
    out: list[rx.Var] = []

    def walk(x: Any) -> None:
        if isinstance(x, rx.Var):
            out.append(x)
        elif isinstance(x, rx.Call):
            walk(x.op)
            for a in x.args:
                walk(a)
        elif isinstance(x, rx.Tuple):
            for f in x.fields:
                walk(f)
        elif isinstance(x, rx.TupleGetItem):
            walk(x.tuple_value)

    walk(e)
    return out


def _is_single(g: Group | None) -> bool:
    return g is None or (g.num_nodes == 1 and not g.attrs)


class GroupedFunctions:
    """Rewrites a module's relax functions, given each variable's (root) group."""

    def __init__(self, mod: IRModule, group_of: dict[int, Group], lift_constants: bool,
                 entries: list[str] | None = None) -> None:
        self.mod, self.entries = mod, entries
        self.group_of = group_of
        self.lift_constants = lift_constants
        self.funcs: dict[GlobalVar, Any] = dict(mod.functions)
        self.names = set(mod.names())
        self.added: list[tuple[GlobalVar, rx.Function]] = []
        self.unnamed: list[rx.Function] = []  # each added function before it got its name
        self.tuple_index: dict[int, int] = {}
        self.deps: dict[int, list[Group]] = {}
        self.outer: dict[int, rx.Expr] = {}

    def run(self) -> IRModule:
        for gv, f in self.mod.functions.items():
            if isinstance(f, rx.Function) and not f.attr_dict.get("Primitive") and (
                    self.entries is None or gv.name_hint in self.entries):
                self.funcs[gv] = self.visit_function(f)
        for gv, f in self.added:
            self.funcs[gv] = f
        return IRModule(self.funcs, dict(self.mod.attrs), dict(self.mod.global_infos))

    def group(self, var: Any) -> Group | None:
        g = self.group_of.get(id(var))
        return None if g is None else g.root()

    def visit_function(self, func: rx.Function) -> rx.Function:
        self.outer = {id(b.var): b.value for b in _bindings_in(func.body)
                      if isinstance(b, rx.VarBinding)}
        return replace(func, body=self.visit_seq(func.body, {}))

    def visit_seq(self, seq: rx.SeqExpr, remap: dict[int, rx.Expr]) -> rx.SeqExpr:
        blocks = []
        for block in seq.blocks:
            if isinstance(block, rx.DataflowBlock):
                block = self.visit_block(block, remap)
            else:
                block = replace(block, bindings=tuple(self.visit_binding(b, remap)
                                                      for b in block.bindings))
            if block.bindings:
                blocks.append(block)
        return replace(seq, blocks=tuple(blocks), body=_substitute(seq.body, remap))

    def visit_binding(self, b: Any, remap: dict[int, rx.Expr]) -> Any:
        """A binding outside dataflow; the branches of an `If` are sequences of their own."""
        v = b.value
        if isinstance(b, rx.VarBinding) and isinstance(v, rx.If):
            return replace(b, value=replace(v, cond=_substitute(v.cond, remap),
                                            true_branch=self.visit_seq(v.true_branch, remap),
                                            false_branch=self.visit_seq(v.false_branch, remap)))
        return replace(b, value=_substitute(v, remap))

    def collect(self, bindings: tuple[Any, ...]) -> dict[int, FunctionCreator]:
        creators: dict[int, FunctionCreator] = {}
        for b in bindings:
            g = self.group(b.var)
            if not _is_single(g):
                creators.setdefault(id(g), FunctionCreator(self.lift_constants,
                                                           self.outer)).append(b)
        for b in bindings:  # the values a group defines and a later binding uses are outputs
            cur = self.group(b.var)
            for v in _vars_in(b.value):
                prod = self.group(v)
                if prod is cur or prod is None:
                    continue
                if any(d is cur for d in self.deps.get(id(prod), [])):
                    raise FusionCycleError(f"A cyclic dependency detected between the groups of "
                                     f"{b.var.name_hint!r} and {v.name_hint!r}")
                self.deps.setdefault(id(cur), []).append(prod)
                if id(prod) in creators:
                    self.tuple_index[id(v)] = creators[id(prod)].add_output(v)
        for g_id, creator in creators.items():
            g = next(self.group(b.var) for b in creator.bindings)
            creator.create(dict(g.attrs))  # type: ignore[union-attr]
            for i, v in enumerate(creator.outputs):
                self.tuple_index.setdefault(id(v), i)
        return creators

    def topo_sorted(self, bindings: tuple[Any, ...]) -> list[Any]:
        """Bindings grouped, each group after the groups it uses, else in block order."""
        per_group: dict[int, list[Any]] = {}
        order: list[Group | None] = []
        for b in bindings:
            g = self.group(b.var)
            order.append(g)
            per_group.setdefault(id(g), []).append(b)
        seen: set[int] = set()
        out: list[Any] = []

        def visit(g: Group | None) -> None:
            if id(g) in seen:
                return
            seen.add(id(g))
            for d in self.deps.get(id(g), []):
                visit(d)
            out.extend(per_group.get(id(g), []))

        for g in order:
            visit(g)
        return out

    def visit_block(self, block: rx.DataflowBlock, remap: dict[int, rx.Expr]) -> Any:
        creators = self.collect(block.bindings)
        out: list[Any] = []
        pending: dict[int, list[rx.Var]] = {}
        for b in self.topo_sorted(block.bindings):
            g = self.group(b.var)
            if _is_single(g):
                out.append(replace(b, value=_substitute(b.value, remap)))
                continue
            creator = creators[id(g)]
            fn = creator.function
            if fn is None:
                continue
            tuple_out = isinstance(fn.ret_struct_info, si.TupleStructInfo)
            if tuple_out and id(b.var) in self.tuple_index and (
                    not isinstance(b.var.struct_info, si.TupleStructInfo) or _nested(fn)):
                pending.setdefault(id(g), []).append(b.var)
            if b is creator.bindings[-1]:
                self.emit_call(b, creator, pending.get(id(g), []) if tuple_out else [], out,
                               remap)
        return replace(block, bindings=tuple(out))

    def emit_call(self, b: Any, creator: FunctionCreator, pending: list[rx.Var],
                  out: list[Any], remap: dict[int, rx.Expr]) -> None:
        fn = creator.function
        gv = self.add_function(fn, creator.name)  # type: ignore[arg-type]
        args = tuple(self.bind_item(_substitute(a, remap), out) for a in creator.arguments)
        ret = creator.result_struct_info
        call = rx.Call(rx.GlobalVarRef(gv, fn.struct_info), args,  # type: ignore[union-attr]
                       struct_info=ret)
        # a fresh variable, named as TVM's builder names those it emits; a sole output stands
        # for the call even when a dead binding of the group comes after it
        result = creator.outputs[0] if len(creator.outputs) == 1 else b.var
        var = type(result)("lv" if isinstance(result, rx.DataflowVar) else "gv", ret)
        out.append(rx.VarBinding(var, call))
        if not pending:
            remap[id(result)] = var
            return
        for v in pending:
            item = rx.TupleGetItem(var, self.tuple_index[id(v)], v.struct_info)
            new = type(v)(v.name_hint, v.struct_info)
            out.append(rx.VarBinding(new, item))
            remap[id(v)] = new

    @staticmethod
    def bind_item(arg: rx.Expr, out: list[Any]) -> rx.Expr:
        """A tuple field passed on its own is bound to a variable first (normal form)."""
        if not isinstance(arg, rx.TupleGetItem):
            return arg
        var = rx.DataflowVar("lv", arg.struct_info)
        out.append(rx.VarBinding(var, arg))
        return var

    def add_function(self, fn: rx.Function, name: str) -> GlobalVar:
        for (gv, _), f in zip(self.added, self.unnamed):
            if structural_equal(f, fn):
                return gv
        self.unnamed.append(fn)
        name = fresh_name(name, self.names)
        codegen = fn.attr_dict.get("Codegen")
        if codegen is not None:  # TVM's name: the fresh one, then the backend; and public
            name = fresh_name(f"{name}_{codegen}", self.names)
            fn = fn.with_attr("global_symbol", name)
        gv = GlobalVar(name)
        self.names.add(gv.name_hint)
        self.added.append((gv, fn))
        return gv


def _bindings_in(seq: rx.SeqExpr) -> list[Any]:
    """The bindings of a sequence and of the `If` branches in it, in order."""
    out: list[Any] = []
    for blk in seq.blocks:
        for b in blk.bindings:
            if isinstance(b.value, rx.If):
                out += _bindings_in(b.value.true_branch) + _bindings_in(b.value.false_branch)
            out.append(b)
    return out


def _nested(fn: rx.Function) -> bool:
    ret = fn.ret_struct_info
    return isinstance(ret, si.TupleStructInfo) and any(
        isinstance(f, si.TupleStructInfo) for f in ret.fields)


def group_functions(mod: IRModule, group_of: dict[int, Group], lift_constants: bool = True,
                    entries: list[str] | None = None) -> IRModule:
    """`mod` with every multi-binding (or attributed) group made a function and called (in
    the functions named by `entries`, else in every non-primitive one)."""
    return GroupedFunctions(mod, group_of, lift_constants, entries).run()


__all__ = ["FunctionCreator", "GroupedFunctions", "group_functions"]
