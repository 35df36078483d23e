"""LazyGetInput and LazySetOutput (TVM's passes): a function that transforms weights asks for
each weight when it first needs it (`fget_param(index, name)`), and hands each result over as
soon as it is computed (`fset_output(index, value)`), so no more than a few weights need to be
in memory at once.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.type_analysis import definable_tir_vars_in_type, erase_to_well_defined
from ..tir import expr as tx
from .module_passes import _first_use
from .pass_infra import Pass, PassContext

_INDEX = si.PrimStructInfo("int64")


def _prim(i: int) -> rx.PrimValue:
    value = tx.const(i, "int64")
    return rx.PrimValue(value, si.PrimStructInfo("int64", value))


class _Rename(ExprMutator):
    def __init__(self, mapping: dict[rx.Var, rx.Var]) -> None:
        self.mapping = mapping

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.mapping.get(v, v)

    visit_DataflowVar = visit_Var


def _lazy_inputs(func: rx.Function) -> rx.Function:
    n = int(func.attr_dict.get("num_input", 0))
    lazy = list(func.params[n:])
    getter = rx.Var("fget_param", si.FuncStructInfo((_INDEX, si.ObjectStructInfo()),
                                                    si.ObjectStructInfo()))
    where = _first_use(func, lazy)
    mapping = {p: rx.Var(p.name_hint, p.struct_info, p.span) for p in where}
    seq = _Rename(mapping).visit(func.body)
    blocks = [list(b.bindings) for b in seq.blocks] or [[]]
    kinds = [type(b) for b in seq.blocks] or [rx.BindingBlock]
    for p in sorted(where, key=lambda v: where[v], reverse=True):
        i, j = where[p]
        fetched = rx.Var(p.name_hint, si.ObjectStructInfo())
        call = rx.Call(getter, (_prim(lazy.index(p)), rx.StringImm(p.name_hint)),
                       struct_info=si.ObjectStructInfo())
        cast = rx.MatchCast(mapping[p], fetched, p.struct_info)
        blocks[i][min(j, len(blocks[i])):min(j, len(blocks[i]))] = [
            rx.VarBinding(fetched, call), cast]
    params = tuple(func.params[:n]) + (getter,)
    defined = {v: v for p in params for v in definable_tir_vars_in_type(
        p.struct_info or si.ObjectStructInfo())}
    ret = erase_to_well_defined(func.ret_struct_info, defined) if func.ret_struct_info else None
    new = replace(func, params=params, ret_struct_info=ret,
                  body=replace(seq, blocks=tuple(k(tuple(bs)) for k, bs in zip(kinds, blocks)
                                                 if bs)))
    return new.with_attr("num_input", n + 1)


def LazyGetInput() -> Pass:  # noqa: N802
    """Public functions take `fget_param` instead of their weights (the parameters after
    `num_input`, all of them without it) and fetch each weight where it is first used."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _lazy_inputs(f) if isinstance(
            f, rx.Function) and "global_symbol" in f.attr_dict else f)
    return Pass(run, "LazyGetInput")


def _outputs(func: rx.Function) -> list[rx.Expr] | None:
    ret = func.body.body
    return list(ret.fields) if isinstance(ret, rx.Tuple) else None


def _lazy_outputs(func: rx.Function) -> rx.Function:
    outputs = _outputs(func)
    if outputs is None:
        return func
    setter = rx.Var("fset_output", si.FuncStructInfo((_INDEX, si.ObjectStructInfo()),
                                                     si.TupleStructInfo(()), purity=False))

    def hand_over(i: int, value: rx.Expr) -> rx.VarBinding:
        call = rx.Call(setter, (_prim(i), value), struct_info=si.TupleStructInfo(()))
        return rx.VarBinding(rx.Var("_", si.TupleStructInfo(())), call)

    first = [hand_over(i, v) for i, v in enumerate(outputs) if v in func.params]
    blocks: list[rx.BindingBlock] = [rx.BindingBlock(tuple(first))] if first else []
    for blk in func.body.blocks:
        later: list[Any] = []
        out: list[Any] = []
        for b in blk.bindings:
            out.append(b)
            calls = [hand_over(i, v) for i, v in enumerate(outputs) if v is b.var]
            (later if isinstance(blk, rx.DataflowBlock) else out).extend(calls)
        blocks.append(replace(blk, bindings=tuple(out)))
        if later:  # NOTE: impure calls cannot sit in a dataflow block: right after it
            blocks.append(rx.BindingBlock(tuple(later)))
    empty = rx.Tuple((), si.TupleStructInfo(()))
    body = replace(func.body, blocks=tuple(b for b in blocks if b.bindings), body=empty)
    return replace(func, params=func.params + (setter,), body=body,
                   ret_struct_info=si.TupleStructInfo(()), is_pure=False)


def LazySetOutput() -> Pass:  # noqa: N802
    """Public functions returning a tuple take `fset_output` and call it with each item as
    soon as it is bound; they then return an empty tuple."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _lazy_outputs(f) if isinstance(
            f, rx.Function) and "global_symbol" in f.attr_dict else f)
    return Pass(run, "LazySetOutput")


# -- LazyTransformParams (the older, packed-function form) -----------------------------------


def _packed(name: str, args: tuple[rx.Expr, ...]) -> rx.Call:
    return rx.Call(rx.ExternFunc(name), args, sinfo_args=(si.ObjectStructInfo(),),
                   struct_info=si.ObjectStructInfo())


def _flat_params(func: rx.Function) -> rx.Function:
    """Tuple parameters as one parameter per item (ExpandTupleArguments' rewrite)."""
    from ..ir.functor import substitute_vars
    from .function_passes import _leaves, _pack, _simplify

    if not any(isinstance(p.struct_info, si.TupleStructInfo) for p in func.params):
        return func
    params: list[rx.Var] = []
    mapping: dict[rx.Var, rx.Expr] = {}
    for p in func.params:
        if isinstance(p.struct_info, si.TupleStructInfo):
            leaves = _leaves(p.struct_info, p.name_hint)
            params += leaves
            mapping[p] = _pack(p.struct_info, list(leaves))
        else:
            params.append(p)
    return _simplify(replace(func, params=tuple(params), body=substitute_vars(func.body,
                                                                              mapping)))


def _fetch_lazily(func: rx.Function, fget: str, extra: tuple[rx.Expr, ...]) -> rx.Function:
    where = _first_use(func, list(func.params))
    mapping = {p: rx.Var(p.name_hint, p.struct_info, p.span) for p in where}
    seq = _Rename(mapping).visit(func.body)
    blocks = [list(b.bindings) for b in seq.blocks] or [[]]
    for p in sorted(where, key=lambda v: where[v], reverse=True):
        i, j = where[p]
        fetched = rx.Var(p.name_hint, si.ObjectStructInfo())
        call = _packed(fget, extra + (_prim(func.params.index(p)),))
        blocks[i][min(j, len(blocks[i])):min(j, len(blocks[i]))] = [
            rx.VarBinding(fetched, call), rx.MatchCast(mapping[p], fetched, p.struct_info)]
    return replace(func, params=(), body=replace(seq, blocks=tuple(
        rx.BindingBlock(tuple(bs)) for bs in blocks if bs)))


def _set_eagerly(func: rx.Function, fset: str, extra: tuple[rx.Expr, ...]) -> rx.Function:
    ret = func.body.body
    bound = {b.var: b.value for blk in func.body.blocks for b in blk.bindings}
    tup = bound.get(ret, ret) if isinstance(ret, rx.Var) else ret
    if not isinstance(tup, rx.Tuple):
        return func
    outputs = list(tup.fields)

    def hand_over(i: int, value: rx.Expr) -> rx.VarBinding:
        return rx.VarBinding(rx.Var("_", si.ObjectStructInfo()),
                             _packed(fset, extra + (_prim(i), value)))

    blocks = []
    for blk in func.body.blocks:
        out: list[Any] = []
        for b in blk.bindings:
            if b.value is tup:
                continue
            out.append(b)
            out.extend(hand_over(i, v) for i, v in enumerate(outputs) if v is b.var)
        blocks.append(rx.BindingBlock(tuple(out)))
    empty = rx.Tuple((), si.TupleStructInfo(()))
    return replace(func, body=replace(func.body, blocks=tuple(blocks), body=empty),
                   ret_struct_info=si.TupleStructInfo(()))


def LazyTransformParams(fget_item: str | None = "get_item",  # noqa: N802
                        fset_item: str | None = "set_item",
                        extra_get_item_params: list[Any] | None = None,
                        extra_set_item_params: list[Any] | None = None) -> Pass:
    """The weights of each public function are fetched with the packed function `fget_item`
    (index) where first used, and its results handed to `fset_item` (index, value) as soon as
    they are bound; the function then takes nothing and returns an empty tuple."""
    from .simple_passes import to_non_dataflow

    get_extra = tuple(extra_get_item_params or ())
    set_extra = tuple(extra_set_item_params or ())

    def lazy(f: rx.Function) -> rx.Function:
        f = to_non_dataflow(_flat_params(f))
        if fget_item is not None:
            f = _fetch_lazily(f, fget_item, get_extra)
        if fset_item is not None:
            f = _set_eagerly(f, fset_item, set_extra)
        attrs = tuple((k, v) for k, v in f.attrs if k != "relax.force_pure")
        return replace(f, is_pure=False, attrs=attrs)

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: lazy(f) if isinstance(f, rx.Function) and
                                 "global_symbol" in f.attr_dict else f)
    return Pass(run, "LazyTransformParams")
