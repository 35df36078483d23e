"""ComputePrimValue (TVM's pass): R.prim_value expressions are computed by host prim_funcs.

An `R.prim_value(N % 16 == 0)` (an If condition, an `R.assert_op` argument) is an expression
over symbolic variables that something must evaluate at run time. The pass moves each such
expression (not a constant, not a bare variable) into a private prim_func
`compute_symbolic_expr(N: T.int64) -> T.bool` marked `tir.is_host_func`, whose body returns it,
and binds the call `compute_symbolic_expr(R.prim_value(N))` to a variable that takes the
expression's place. The VM runs such a value-returning prim_func on the host (see
`host_prim_call`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule
from ..tir import expr as tx
from ..tir import stmt as ts
from ..tir.function import PrimFunc, free_vars
from ..tir.functor import substitute
from .pass_infra import Pass, PassContext

HOST_FUNC_ATTR = "tir.is_host_func"
_NAME = "compute_symbolic_expr"


def host_expression(func: PrimFunc) -> tx.PrimExpr | None:
    """The expression a value-returning prim_func's body returns, when the body is only
    `return <expr>` over its scalar parameters (what ComputePrimValue makes)."""
    body = func.body
    if func.ret_dtype == "void" or func.buffer_map or not isinstance(body, ts.Evaluate):
        return None
    call = body.value
    if not isinstance(call, tx.Call) or call.op != "tir.ret" or len(call.args) != 1:
        return None
    return call.args[0]


def host_prim_call(func: PrimFunc, args: tuple[rx.Expr, ...]) -> tx.PrimExpr | None:
    """A call of a host prim_func as the expression it computes over the call's own values
    (None when an argument's value is not known as a TIR expression)."""
    expr = host_expression(func)
    if expr is None or len(args) != len(func.params):
        return None
    values: dict[tx.Var, tx.PrimExpr] = {}
    for param, arg in zip(func.params, args):
        value = arg.value if isinstance(arg, rx.PrimValue) else \
            getattr(arg.struct_info, "value", None)
        if value is None:
            return None
        values[param] = value
    return substitute(expr, values)


def _is_compound(value: tx.PrimExpr) -> bool:
    return not isinstance(value, (tx.IntImm, tx.FloatImm, tx.Var))


class _Extract(ExprMutator):
    """Replaces each compound PrimValue by a variable bound, just before the binding that
    uses it, to a call of a new host prim_func."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.added: dict[GlobalVar, PrimFunc] = {}
        self.pending: list[rx.VarBinding] = []

    def visit_Function(self, func: rx.Function) -> rx.Function:
        return func  # a nested function is its own scope: left alone, as TVM leaves it

    def visit_PrimValue(self, pv: rx.PrimValue) -> rx.Expr:
        if not _is_compound(pv.value):
            return pv
        gv, func = self.host_function(pv.value)
        ret = si.PrimStructInfo(func.ret_dtype)
        args = tuple(rx.PrimValue(v, si.PrimStructInfo(v.dtype, value=v))
                     for v in free_vars(pv.value))
        call = rx.Call(rx.GlobalVarRef(gv, si.FuncStructInfo(None, ret, True)), args,
                       struct_info=ret)
        var = rx.Var("condition" if func.ret_dtype == "bool" else "value", ret)
        self.pending.append(rx.VarBinding(var, call))
        return var

    def host_function(self, value: tx.PrimExpr) -> tuple[GlobalVar, PrimFunc]:
        params = {v: tx.Var(v.name, v.dtype) for v in free_vars(value)}
        body = ts.Evaluate(tx.Call(value.dtype, "tir.ret", (substitute(value, params),)))
        func = PrimFunc(tuple(params.values()), (), body, ((HOST_FUNC_ATTR, True),),
                        value.dtype)
        name, k = _NAME, 0
        while name in self.taken:
            k += 1
            name = f"{_NAME}_{k}"
        self.taken.add(name)
        gv = GlobalVar(name)
        self.added[gv] = func
        return gv, func

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        out: list[Any] = []
        for b in block.bindings:
            saved, self.pending = self.pending, []
            new = self.visit_binding(b)
            out += self.pending + [new]
            self.pending = saved
        if len(out) == len(block.bindings) and all(a is b for a, b in zip(out, block.bindings)):
            return block
        return replace(block, bindings=tuple(out))

    def visit_seq_expr(self, seq: rx.SeqExpr) -> rx.SeqExpr:
        blocks = tuple(self.visit_block(b) for b in seq.blocks)
        saved, self.pending = self.pending, []
        body = self.visit(seq.body)
        if self.pending:  # the returned value itself was computed: bind it last
            blocks += (rx.BindingBlock(tuple(self.pending)),)
        self.pending = saved
        if body is seq.body and all(a is b for a, b in zip(blocks, seq.blocks)) and \
                len(blocks) == len(seq.blocks):
            return seq
        return replace(seq, blocks=blocks, body=body)


def ComputePrimValue() -> Pass:  # noqa: N802 (TVM's name)
    """Compute every non-trivial `R.prim_value` in a host prim_func (see the module doc)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        extract = _Extract({gv.name_hint for gv in mod.functions})
        funcs: dict[GlobalVar, Any] = {}
        for gv, f in mod.items():
            funcs[gv] = f
            if isinstance(f, rx.Function):
                body = extract.visit_seq_expr(f.body)
                funcs[gv] = f if body is f.body else replace(f, body=body)
        if not extract.added:
            return mod
        funcs.update(extract.added)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))

    return Pass(run, "ComputePrimValue")


__all__ = ["ComputePrimValue", "host_expression", "host_prim_call"]
