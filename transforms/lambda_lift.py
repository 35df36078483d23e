"""LambdaLift: local functions (`f = R.function` values bound inside a function) become private
module functions, as TVM's pass makes them.

Invariants out: a lifted function is named `<parent>_<local name>` (with `_0`, `_1`, ... when
that name is taken), owns fresh symbolic variables (one symbolic var belongs to one function),
and every call of it has the struct info a call of the module function infers, so the callers
no longer mention the callee's symbolic dims. A local function capturing variables of its
parent (a closure) is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars, var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.op import with_inferred_struct_info
from ..ir.type_analysis import tir_vars_in_type
from ..tir import expr as tx
from .bind_symbolic import bind_symbolic_vars
from .pass_infra import Pass, PassContext


def LambdaLift() -> Pass:  # noqa: N802
    """Local functions become private module functions; closures are refused."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        names = {gv.name_hint for gv in funcs}
        for gv, f in mod.items():
            if isinstance(f, rx.Function):
                funcs[gv] = _Lifter(funcs, names).lift(gv.name_hint, f)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "LambdaLift")


class _Lifter:
    def __init__(self, funcs: dict[GlobalVar, Any], names: set[str]) -> None:
        self.funcs, self.names = funcs, names

    def lift(self, parent: str, func: rx.Function) -> rx.Function:
        """`func` with its local functions moved into the module and its calls of them
        re-inferred."""
        mapping: dict[rx.Var, rx.Expr] = {}
        blocks = []
        for blk in func.body.blocks:
            out = []
            for b in blk.bindings:
                if isinstance(b.value, rx.Function):
                    mapping[b.var] = self._lift_local(parent, b.var, b.value)
                    continue
                value = _reinfer(substitute_vars(b.value, mapping))
                if isinstance(b, rx.VarBinding) and value.struct_info is not None and \
                        value.struct_info != b.var.struct_info:
                    var = type(b.var)(b.var.name_hint, value.struct_info, b.var.span)
                    mapping[b.var] = var
                    b = replace(b, var=var)
                out.append(replace(b, value=value))
            blocks.append(replace(blk, bindings=tuple(out)))
        if not mapping:
            return func
        body = _reinfer(substitute_vars(func.body.body, mapping))
        seq = replace(func.body, blocks=tuple(blocks), body=body)
        ret = func.ret_struct_info
        if ret is None or tir_vars_in_type(ret) and not _declared(func, ret):
            ret = body.struct_info
        # NOTE: as a rebuilt function in TVM, main returns what its body now knows
        return replace(func, body=seq, ret_struct_info=rx.refine_return(func.params, ret, seq))

    def _lift_local(self, parent: str, var: rx.Var, local: rx.Function) -> rx.Expr:
        inner = self.lift(f"{parent}_{var.name_hint}", local)
        free = set(var_use_counts(inner.body)) - set(inner.params) - _bound(inner)
        if free:
            raise ValueError(f"LambdaLift: local function {var.name_hint!r} captures "
                             f"{sorted(v.name_hint for v in free)}; closures are not supported")
        inner = _own_symbolic_vars(inner)
        gv = GlobalVar(self._fresh_name(f"{parent}_{var.name_hint}"))
        inner = replace(inner, attrs=tuple((k, v) for k, v in inner.attrs
                                           if k != "global_symbol"))
        self.funcs[gv] = inner
        return rx.GlobalVarRef(gv, inner.struct_info)

    def _fresh_name(self, base: str) -> str:
        name, i = base, 0
        while name in self.names:
            name, i = f"{base}_{i}", i + 1
        self.names.add(name)
        return name


def _reinfer(value: rx.Expr) -> rx.Expr:
    """`value` with the struct info its (possibly substituted) parts now give."""
    if isinstance(value, rx.Tuple):
        fields = tuple(_reinfer(f) for f in value.fields)
        return rx.Tuple(fields, span=value.span)
    if not isinstance(value, rx.Call):
        return value
    if isinstance(value.op, rx.Op):
        return with_inferred_struct_info(value)
    finfo = getattr(value.op, "struct_info", None)
    if isinstance(value.op, rx.GlobalVarRef) and isinstance(finfo, si.FuncStructInfo):
        return replace(value, struct_info=si.call_ret_sinfo(finfo, value.args))
    return value


def _own_symbolic_vars(func: rx.Function) -> rx.Function:
    """`func` with fresh copies of the symbolic vars its signature mentions, so a function
    lifted out of its parent shares none with it."""
    seen: dict[tx.Var, tx.Var] = {}
    for p in func.params:
        for v in tir_vars_in_type(p.struct_info):
            seen.setdefault(v, tx.Var(v.name, v.dtype))
    return bind_symbolic_vars(func, dict(seen)) if seen else func


def _declared(func: rx.Function, ret: si.StructInfo) -> bool:
    """Whether every symbolic var of the declared result is one the parameters define."""
    own = {v for p in func.params for v in tir_vars_in_type(p.struct_info)}
    return set(tir_vars_in_type(ret)) <= own


def _bound(func: rx.Function) -> set[rx.Var]:
    return {b.var for blk in func.body.blocks for b in blk.bindings}
