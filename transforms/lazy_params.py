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


def _outputs(func: rx.Function) -> list[rx.Expr]:
    """The returned items: a returned tuple's fields (written inline or bound to the returned
    variable), else the returned value alone."""
    ret = func.body.body
    if isinstance(ret, rx.Var):
        for blk in func.body.blocks:
            for b in blk.bindings:
                if b.var is ret and isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Tuple):
                    ret = b.value
    return list(ret.fields) if isinstance(ret, rx.Tuple) else [ret]


def _merge_plain_blocks(blocks: list[rx.BindingBlock]) -> tuple[rx.BindingBlock, ...]:
    """Adjacent non-dataflow blocks as one (TVMScript writes them as one)."""
    out: list[rx.BindingBlock] = []
    for blk in blocks:
        if not blk.bindings:
            continue
        if out and type(blk) is rx.BindingBlock and type(out[-1]) is rx.BindingBlock:
            out[-1] = rx.BindingBlock(out[-1].bindings + blk.bindings)
        else:
            out.append(blk)
    return tuple(out)


def _with_setter(func: rx.Function, setter: rx.Var) -> rx.Function:
    """`fset_output` goes after the run-time inputs (`num_input`), before the weights."""
    if "num_input" not in func.attr_dict:
        return replace(func, params=func.params + (setter,))
    n = int(func.attr_dict["num_input"])
    params = func.params[:n] + (setter,) + func.params[n:]
    return replace(func, params=params).with_attr("num_input", n + 1)


def _lazy_outputs(func: rx.Function) -> rx.Function:
    outputs = _outputs(func)
    setter = rx.Var("fset_output", si.FuncStructInfo((_INDEX, si.ObjectStructInfo()),
                                                     si.TupleStructInfo(()), purity=False))

    def hand_over(i: int, value: rx.Expr) -> rx.VarBinding:
        call = rx.Call(setter, (_prim(i), value), struct_info=si.TupleStructInfo(()))
        return rx.VarBinding(rx.Var("_", si.TupleStructInfo(())), call)

    bound = {b.var for blk in func.body.blocks for b in blk.bindings}
    first = [hand_over(i, v) for i, v in enumerate(outputs) if v in func.params]
    blocks: list[rx.BindingBlock] = [rx.BindingBlock(tuple(first))]
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
    # items that no binding defines (constants, prim values) are handed over last
    inline = [hand_over(i, v) for i, v in enumerate(outputs)
              if v not in bound and v not in func.params]
    blocks.append(rx.BindingBlock(tuple(inline)))
    empty = rx.Tuple((), si.TupleStructInfo(()))
    body = replace(func.body, blocks=_merge_plain_blocks(blocks), body=empty)
    return _with_setter(replace(func, body=body, ret_struct_info=si.TupleStructInfo(()),
                                is_pure=False), setter)


def LazySetOutput() -> Pass:  # noqa: N802
    """Public functions returning a tuple take `fset_output` and call it with each item as
    soon as it is bound; they then return an empty tuple."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _lazy_outputs(f) if isinstance(
            f, rx.Function) and "global_symbol" in f.attr_dict else f)
    return Pass(run, "LazySetOutput")
