"""Passes over a module's functions and their call sites: AttachGlobalSymbol,
NormalizeGlobalVar, RemoveUnusedParameters, RemoveUnusedOutputs, ExpandTupleArguments,
InlinePrivateFunctions and UpdateParamType (TVM's passes of those names).

A private function (one without a `global_symbol`) may change its signature, since every call
of it is in the module and is rewritten with it; a public one keeps its signature.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.analysis import get_var2val
from ..ir.functor import ExprMutator, ExprVisitor, substitute_vars, var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.op import with_inferred_struct_info
from ..ir.reemit import ReemitMutator
from ..ir.type_analysis import definable_tir_vars_in_type, tir_vars_in_type
from ..ir.usage_analysis import _prim_exprs, detect_recursion
from ..tir.function import PrimFunc
from ..tir.function import free_vars as prim_free_vars
from .pass_infra import Pass, PassContext


def _is_private(f: Any) -> bool:
    return isinstance(f, rx.Function) and "global_symbol" not in f.attr_dict


def _rebuild(mod: IRModule, funcs: dict[GlobalVar, Any]) -> IRModule:
    return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))


class _CallRewriter(ExprMutator):
    """Rewrites every call of module function `name` with `fn(call) -> expr`."""

    def __init__(self, name: str, fn: Callable[[rx.Call], rx.Expr]) -> None:
        self.name, self.fn = name, fn

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        call = self.generic_visit(call)
        if isinstance(call.op, rx.GlobalVarRef) and call.op.gvar.name_hint == self.name:
            return self.fn(call)
        return call


def _rewrite_calls(funcs: dict[GlobalVar, Any], name: str,
                   fn: Callable[[rx.Call], rx.Expr]) -> None:
    for gv, f in funcs.items():
        if isinstance(f, rx.Function):
            funcs[gv] = _CallRewriter(name, fn).visit(f)


def _calls_of(func: rx.Function, name: str) -> list[rx.Call]:
    """Every call of module function `name` inside `func`."""
    found: list[rx.Call] = []

    class _Find(ExprVisitor):
        def visit_Call(self, call: rx.Call) -> None:
            if isinstance(call.op, rx.GlobalVarRef) and call.op.gvar.name_hint == name:
                found.append(call)
            self.generic_visit(call)

    _Find().visit(func)
    return found


def _with_callee(call: rx.Call, callee: rx.Function, args: tuple[rx.Expr, ...]) -> rx.Call:
    """`call` of the changed `callee` with `args`: the callee's struct info refreshed."""
    op = replace(call.op, struct_info=callee.struct_info)
    return replace(call, op=op, args=args)


# -- names -----------------------------------------------------------------------------------


def AttachGlobalSymbol() -> Pass:  # noqa: N802
    """Give every function without a `global_symbol` its name (after the module's
    `system_lib_prefix`), making it visible outside the module."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        prefix = str(mod.attrs.get("system_lib_prefix", ""))
        # NOTE: TVM prefixes the names of prim_funcs only (relax functions keep theirs)
        new_gvs = {gv: GlobalVar(prefix + gv.name_hint) if prefix and isinstance(
            f, PrimFunc) and "global_symbol" not in f.attr_dict else gv
            for gv, f in mod.items()}
        funcs = {}
        for gv, f in mod.items():
            if isinstance(f, (rx.Function, PrimFunc)) and "global_symbol" not in f.attr_dict:
                f = f.with_attr("global_symbol", new_gvs[gv].name_hint)
            funcs[new_gvs[gv]] = _Renamer(new_gvs).visit(f) if prefix and isinstance(
                f, rx.Function) else f
        return _rebuild(mod, funcs)
    return Pass(run, "AttachGlobalSymbol")


def NormalizeGlobalVar() -> Pass:  # noqa: N802
    """Name each public function's GlobalVar by its `global_symbol`, renaming a private
    function that held that name (`f` -> `f1`) and every call of it."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        renames: dict[str, str] = {}
        for gv, f in mod.items():
            symbol = getattr(f, "attr_dict", {}).get("global_symbol")
            if symbol is not None and symbol != gv.name_hint:
                renames[gv.name_hint] = str(symbol)
        taken = {gv.name_hint for gv in mod.functions if gv.name_hint not in renames}
        taken |= set(renames.values())
        for old, new in list(renames.items()):
            if new in taken and new not in renames:  # a private function in the way
                fresh = _fresh(new, taken)
                renames[new] = fresh
                taken.add(fresh)
        if not renames:
            return mod
        new_gvs = {gv: GlobalVar(renames.get(gv.name_hint, gv.name_hint)) for gv in mod.functions}
        return _rebuild(mod, {new_gvs[gv]: _Renamer(new_gvs).visit(f)
                              if isinstance(f, rx.Function) else f
                              for gv, f in mod.items()})
    return Pass(run, "NormalizeGlobalVar")


def _fresh(base: str, taken: set[str]) -> str:
    i = 1
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


class _Renamer(ReemitMutator):
    """Calls of renamed functions call the new GlobalVar; as TVM re-emits each changed
    binding, its variable takes the (re-inferred) struct info of its value."""

    def __init__(self, new_gvs: dict[GlobalVar, GlobalVar]) -> None:
        super().__init__()
        self.by_name = {gv.name_hint: new for gv, new in new_gvs.items()}

    def visit_GlobalVarRef(self, ref: rx.GlobalVarRef) -> rx.Expr:
        new = self.by_name.get(ref.gvar.name_hint)
        return ref if new is None or new is ref.gvar else replace(ref, gvar=new)


# -- parameters ------------------------------------------------------------------------------


def _needed_tir_vars(func: rx.Function) -> set[Any]:
    exprs = _prim_exprs(func.body)
    if func.ret_struct_info is not None:
        exprs += list(tir_vars_in_type(func.ret_struct_info))
    return {v for e in exprs for v in prim_free_vars(e)}


def _kept_params(func: rx.Function) -> tuple[list[int], list[Any]]:
    """The parameters a private function reads, and the symbolic vars the body or result
    needs that no kept parameter defines (as TVM 0.27, which passes each of them through an
    `R.Shape([v])` parameter of its own instead of keeping an unused tensor for it)."""
    used = var_use_counts(func.body)
    keep = [i for i, p in enumerate(func.params) if p in used]
    defined = {v for i in keep for v in definable_tir_vars_in_type(
        func.params[i].struct_info or si.ObjectStructInfo())}
    needed = _needed_tir_vars(func) - defined
    order = [v for p in func.params for v in definable_tir_vars_in_type(
        p.struct_info or si.ObjectStructInfo())]
    promoted = list(dict.fromkeys(v for v in order if v in needed))
    # NOTE: TVM adds them last-defined first (m, n -> param_n, param_m)
    return keep, promoted[::-1]


def _promoted_args(func: rx.Function, call: rx.Call, promoted: list[Any]) -> tuple[Any, ...]:
    """`R.shape([v])` for each promoted var, in the caller's terms (as the call's arguments
    give the callee's parameters their dims)."""
    bound: dict[Any, Any] = {}
    for p, a in zip(func.params, call.args):
        si.bind_param_dims(p.struct_info, a.struct_info, bound)
    return tuple(rx.ShapeExpr((bound[v],)) for v in promoted)


def RemoveUnusedParameters() -> Pass:  # noqa: N802
    """Drop the parameters of private functions that their bodies never need, at every
    call site too."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        for gv, f in mod.items():
            if not _is_private(f):
                continue
            keep, promoted = _kept_params(f)
            if len(keep) == len(f.params) or any(not _bound_at_calls(funcs, gv, f, v)
                                                 for v in promoted):
                continue
            extra = tuple(rx.Var(f"param_{v.name}", si.ShapeStructInfo((v,)))
                          for v in promoted)
            new = funcs[gv] = replace(f, params=tuple(f.params[i] for i in keep) + extra)
            _rewrite_calls(funcs, gv.name_hint, lambda c, f=f, keep=keep, new=new, vs=promoted:
                           _with_callee(c, new, tuple(c.args[i] for i in keep) +
                                        _promoted_args(f, c, vs)))
        return _rebuild(mod, funcs)
    return Pass(run, "RemoveUnusedParameters")


def _bound_at_calls(funcs: dict[GlobalVar, Any], gv: GlobalVar, func: rx.Function,
                    var: Any) -> bool:
    """Whether every call of `gv` gives symbolic var `var` a value (through its arguments'
    struct info), so that it can be passed explicitly."""
    for caller in funcs.values():
        if not isinstance(caller, rx.Function):
            continue
        for call in _calls_of(caller, gv.name_hint):
            bound: dict[Any, Any] = {}
            for p, a in zip(func.params, call.args):
                si.bind_param_dims(p.struct_info, a.struct_info, bound)
            if var not in bound:
                return False
    return True


def _returned_tuple(func: rx.Function) -> rx.Tuple | None:
    ret = func.body.body
    if isinstance(ret, rx.Var):
        ret = get_var2val(func).get(ret, ret)
    return ret if isinstance(ret, rx.Tuple) else None


def _used_outputs(funcs: dict[GlobalVar, Any], name: str, width: int) -> set[int]:
    """Which items of `name`'s tuple result the callers read (all of them when a caller uses
    the tuple whole)."""
    used: set[int] = set()
    for f in funcs.values():
        if not isinstance(f, rx.Function):
            continue
        results = {b.var for blk in f.body.blocks for b in blk.bindings
                   if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.GlobalVarRef)
                   and b.value.op.gvar.name_hint == name}
        whole = var_use_counts(f.body)
        items: dict[rx.Var, int] = {}
        for blk in f.body.blocks:
            for b in blk.bindings:
                v = b.value
                if isinstance(v, rx.TupleGetItem) and v.tuple_value in results:
                    used.add(v.index)
                    items[v.tuple_value] = items.get(v.tuple_value, 0) + 1
        for r in results:
            if whole.get(r, 0) > items.get(r, 0):
                return set(range(width))
    return used


def _drop_outputs(func: rx.Function, tup: rx.Tuple, keep: list[int]) -> rx.Function:
    fields = tuple(tup.fields[i] for i in keep)
    ret: rx.Expr = fields[0] if len(fields) == 1 else rx.Tuple(
        fields, si.TupleStructInfo(tuple(f.struct_info for f in fields)))
    from .simple_passes import remove_unused

    new = remove_unused(replace(func, body=replace(func.body, body=ret)))
    return replace(new, ret_struct_info=ret.struct_info)


def RemoveUnusedOutputs() -> Pass:  # noqa: N802
    """Private functions returning a tuple stop computing the items no caller reads."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        for gv, f in mod.items():
            tup = _returned_tuple(f) if _is_private(f) else None
            if tup is None:
                continue
            used = _used_outputs(funcs, gv.name_hint, len(tup.fields))
            keep = sorted(used)
            if len(keep) == len(tup.fields) or not keep:
                continue
            new = _drop_outputs(f, tup, keep)
            funcs[gv] = new
            _retarget_items(funcs, gv.name_hint, keep, new.ret_struct_info)
        return _rebuild(mod, funcs)
    return Pass(run, "RemoveUnusedOutputs")


def _retarget_items(funcs: dict[GlobalVar, Any], name: str, keep: list[int],
                    ret: Any) -> None:
    """Callers read item `keep[j]` as item j now (or as the whole result when one is left)."""
    for gv, f in funcs.items():
        if not isinstance(f, rx.Function):
            continue
        results: dict[rx.Var, rx.Expr] = {}
        for blk in f.body.blocks:
            for b in blk.bindings:
                v = b.value
                if isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVarRef) and \
                        v.op.gvar.name_hint == name:
                    results[b.var] = type(b.var)(b.var.name_hint, ret, b.var.span)
        if results:
            new = _simplify(_Retarget(name, results, keep, ret).visit(f))
            if f.ret_struct_info == f.body.body.struct_info:  # deduced, not annotated
                new = replace(new, ret_struct_info=new.body.body.struct_info)
            funcs[gv] = new


class _Retarget(ExprMutator):
    def __init__(self, name: str, results: dict[rx.Var, Any], keep: list[int], ret: Any):
        self.name, self.results, self.keep, self.ret = name, results, keep, ret

    def visit_binding(self, b: Any) -> Any:
        b = super().visit_binding(b)
        new = self.results.get(b.var)
        if new is None:
            sinfo = b.value.struct_info
            if isinstance(b, rx.VarBinding) and sinfo is not None and sinfo != b.var.struct_info:
                self.results[b.var] = type(b.var)(b.var.name_hint, sinfo, b.var.span)
                return replace(b, var=self.results[b.var])
            return b
        op = replace(b.value.op, struct_info=replace(b.value.op.struct_info, ret=self.ret))
        return replace(b, var=new, value=replace(b.value, op=op, struct_info=self.ret))

    def visit_TupleGetItem(self, item: rx.TupleGetItem) -> rx.Expr:
        new = self.results.get(item.tuple_value)  # type: ignore[arg-type]
        if new is None:
            return self.generic_visit(item)
        if len(self.keep) == 1:
            return new
        index = self.keep.index(item.index)
        return replace(item, tuple_value=new, index=index, struct_info=self.ret.fields[index])

    def visit_Tuple(self, tup: rx.Tuple) -> rx.Expr:
        new = self.generic_visit(tup)
        if new is tup:
            return tup
        return replace(new, struct_info=si.TupleStructInfo(tuple(
            f.struct_info or si.ObjectStructInfo() for f in new.fields)))

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.results.get(v, v)

    visit_DataflowVar = visit_Var


# -- tuples, inlining, parameter types -------------------------------------------------------


def _leaves(sinfo: Any, name: str) -> list[rx.Var]:
    if isinstance(sinfo, si.TupleStructInfo):
        return [v for i, f in enumerate(sinfo.fields) for v in _leaves(f, f"{name}_{i}")]
    return [rx.Var(name, sinfo)]


def _pack(sinfo: Any, leaves: list[rx.Var]) -> rx.Expr:
    """The tuple (nested as `sinfo`) of the next leaves, consumed from the front."""
    if isinstance(sinfo, si.TupleStructInfo):
        return rx.Tuple(tuple(_pack(f, leaves) for f in sinfo.fields), sinfo)
    return leaves.pop(0)


class _FoldItems(ExprMutator):
    """`(a, b)[0]` -> `a`, also through a variable bound to `(a, b)`."""

    def __init__(self, values: dict[rx.Var, rx.Expr]) -> None:
        self.values = values

    def visit_TupleGetItem(self, item: rx.TupleGetItem) -> rx.Expr:
        item = self.generic_visit(item)
        tup = self.values.get(item.tuple_value, item.tuple_value)  # type: ignore[call-overload]
        if isinstance(tup, rx.Tuple):
            return tup.fields[item.index]
        return item


def _simplify(func: rx.Function) -> rx.Function:
    """Fold known tuple items, drop `y = x` bindings and what nothing uses any more."""
    from .canonicalize import canonicalize
    from .simple_passes import remove_unused

    func = _FoldItems(get_var2val(func)).visit(func)
    return remove_unused(canonicalize(func))


def _flatten_arg(arg: rx.Expr, sinfo: Any, values: dict[rx.Var, rx.Expr]) -> list[rx.Expr]:
    if not isinstance(sinfo, si.TupleStructInfo):
        return [arg]
    known = values.get(arg, arg) if isinstance(arg, rx.Var) else arg
    items = known.fields if isinstance(known, rx.Tuple) else [
        rx.TupleGetItem(arg, i, f) for i, f in enumerate(sinfo.fields)]
    return [x for item, f in zip(items, sinfo.fields) for x in _flatten_arg(item, f, values)]


def ExpandTupleArguments() -> Pass:  # noqa: N802
    """Private functions take each item of a tuple parameter as a parameter of its own."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        for gv, f in mod.items():
            if not _is_private(f) or not any(isinstance(p.struct_info, si.TupleStructInfo)
                                             for p in f.params):
                continue
            params: list[rx.Var] = []
            mapping: dict[rx.Var, rx.Expr] = {}
            for p in f.params:
                leaves = _leaves(p.struct_info, p.name_hint)
                params += leaves
                if isinstance(p.struct_info, si.TupleStructInfo):
                    mapping[p] = _pack(p.struct_info, list(leaves))
                else:
                    params[-1] = p
            new = _simplify(replace(f, params=tuple(params), body=substitute_vars(f.body,
                                                                                  mapping)))
            funcs[gv] = new
            sinfos = [p.struct_info for p in f.params]
            for cgv, cf in list(funcs.items()):
                if isinstance(cf, rx.Function):
                    values = get_var2val(cf)
                    funcs[cgv] = _simplify(_CallRewriter(
                        gv.name_hint, lambda c, v=values, new=new: _with_callee(
                            c, new, tuple(x for a, s in zip(c.args, sinfos)
                                          for x in _flatten_arg(a, s, v)))).visit(cf))
        return _rebuild(mod, funcs)
    return Pass(run, "ExpandTupleArguments")


def _inline(call: rx.Call, callee: rx.Function, emit: list[Any]) -> rx.Expr:
    """Append fresh copies of the callee's bindings (parameters replaced by the arguments)
    to `emit`; return what the call evaluates to."""
    mapping: dict[rx.Var, rx.Expr] = dict(zip(callee.params, call.args))
    for blk in callee.body.blocks:
        for b in blk.bindings:
            var = rx.Var(b.var.name_hint, b.var.struct_info, b.var.span)
            emit.append(replace(b, var=var, value=substitute_vars(b.value, mapping)))
            mapping[b.var] = var
    return substitute_vars(callee.body.body, mapping)


def _inline_calls(func: rx.Function, private: dict[str, rx.Function]) -> rx.Function:
    mapping: dict[rx.Var, rx.Expr] = {}
    blocks = []
    for blk in func.body.blocks:
        out: list[Any] = []
        for b in blk.bindings:
            v = substitute_vars(b.value, mapping) if mapping else b.value
            callee = private.get(v.op.gvar.name_hint) if isinstance(v, rx.Call) and \
                isinstance(v.op, rx.GlobalVarRef) else None
            if callee is None or isinstance(blk, rx.DataflowBlock) or \
                    isinstance(b, rx.MatchCast):
                out.append(replace(b, value=v))
                continue
            result = _inline(v, callee, out)
            if isinstance(result, rx.Var) and out and out[-1].var is result:
                mapping[b.var] = result  # the callee's last binding takes the caller's place
            else:
                out.append(replace(b, value=result))
        blocks.append(replace(blk, bindings=tuple(out)))
    body = substitute_vars(func.body.body, mapping) if mapping else func.body.body
    return replace(func, body=replace(func.body, blocks=tuple(blocks), body=body))


def InlinePrivateFunctions() -> Pass:  # noqa: N802
    """Replace each call of a private relax function by the function's bindings (recursive
    functions excepted); functions no longer called are removed."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        recursive = {gv.name_hint for group in detect_recursion(mod) for gv in group}
        private = {gv.name_hint: f for gv, f in mod.items()
                   if _is_private(f) and gv.name_hint not in recursive}
        if not private:
            return mod
        funcs = {gv: _inline_calls(f, private) if isinstance(f, rx.Function) else f
                 for gv, f in mod.items() if gv.name_hint not in private}
        return _rebuild(mod, funcs)
    return Pass(run, "InlinePrivateFunctions")


def _reinfer(func: rx.Function, mapping: dict[rx.Var, rx.Expr]) -> rx.Function:
    """`func` with variables replaced and the struct info of operator calls inferred again."""
    blocks = []
    for blk in func.body.blocks:
        out = []
        for b in blk.bindings:
            v = substitute_vars(b.value, mapping)
            if isinstance(v, rx.Call) and isinstance(v.op, rx.Op):
                v = with_inferred_struct_info(v)
            if isinstance(b, rx.VarBinding) and v.struct_info is not None and \
                    v.struct_info != b.var.struct_info:
                var = type(b.var)(b.var.name_hint, v.struct_info, b.var.span)
                mapping[b.var] = var
                b = replace(b, var=var)
            out.append(replace(b, value=v))
        blocks.append(replace(blk, bindings=tuple(out)))
    body = substitute_vars(func.body.body, mapping)
    return replace(func, body=replace(func.body, blocks=tuple(blocks), body=body),
                   ret_struct_info=body.struct_info or func.ret_struct_info)


def UpdateParamType(func: Callable[[rx.Var], Any]) -> Pass:  # noqa: N802
    """Give parameters the struct info `func(param)` returns (None keeps it), and infer the
    body's again."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def update(gv: GlobalVar, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            mapping: dict[rx.Var, rx.Expr] = {}
            for p in f.params:
                new = func(p)
                if new is not None:
                    mapping[p] = type(p)(p.name_hint, new, p.span)
            if not mapping:
                return f
            params = tuple(mapping.get(p, p) for p in f.params)
            return _reinfer(replace(f, params=params), mapping)
        return mod.map_functions(update)
    return Pass(run, "UpdateParamType")


UpdateParamStructInfo = UpdateParamType  # its name before TVM 0.27
