"""AttachAttrLayoutFreeBuffers (TVM's pass): a prim_func called by `call_tir` learns which of
its buffers hold model weights, so a tuner may rewrite their layout ahead of time.

A call_tir argument is layout-free when it is a relax constant or a parameter of the calling
function past its `num_input` inputs (TVM's weights). Each (prim_func, layout-free indices)
pair gets its own copy of the prim_func carrying `layout_free_buffers` (named as TVM's name
supply would: `matmul1`, `matmul2`, ...), the call is pointed at it, and a prim_func no call
uses any more is dropped. Run CanonicalizeBindings first, as TVM advises: an argument reached
through a variable alias is not recognised.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.op import CALL_TIR
from ..tir.function import PrimFunc
from ..tir.renew_defs import renew_defs
from .pass_infra import Pass, PassContext


def AttachAttrLayoutFreeBuffers() -> Pass:  # noqa: N802
    """Attach `layout_free_buffers` to the prim_funcs that call_tir gives weights or
    constants."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        attacher = _Attacher(mod)
        funcs = {gv: attacher.rewrite(f) if isinstance(f, rx.Function) else f
                 for gv, f in mod.items()}
        if not attacher.replaced:
            return mod
        funcs.update(attacher.added)
        still_called = called_global_names(funcs)
        funcs = {gv: f for gv, f in funcs.items()
                 if gv.name_hint not in attacher.replaced or gv.name_hint in still_called}
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "AttachAttrLayoutFreeBuffers")


class _Attacher(ExprMutator):
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.names = {gv.name_hint for gv in mod.functions}
        self.copies: dict[tuple[str, tuple[int, ...]], GlobalVar] = {}
        self.added: dict[GlobalVar, PrimFunc] = {}
        self.replaced: set[str] = set()
        self.weights: set[rx.Var] = set()

    def rewrite(self, func: rx.Function) -> rx.Function:
        num_input = func.attr_dict.get("num_input")
        self.weights = set(func.params[int(num_input):]) if num_input is not None else set()
        body = self.visit(func.body)
        return func if body is func.body else replace(func, body=body)

    def visit_Call(self, call: rx.Call) -> rx.Expr:  # noqa: N802
        call = self.generic_visit(call)
        if not (isinstance(call.op, rx.Op) and call.op.name == CALL_TIR.name):
            return call
        callee, args = call.args[0], call.args[1]
        prim = self.mod.functions.get(callee.gvar) if isinstance(callee, rx.GlobalVarRef) \
            else None
        if not isinstance(prim, PrimFunc) or not isinstance(args, rx.Tuple):
            return call
        free = tuple(i for i, a in enumerate(args.fields)
                     if isinstance(a, rx.Constant) or a in self.weights)
        if not free:
            return call
        gv = self._copy(callee.gvar, prim, free)
        return replace(call, args=(replace(callee, gvar=gv), *call.args[1:]))

    def _copy(self, gv: GlobalVar, prim: PrimFunc, free: tuple[int, ...]) -> GlobalVar:
        key = (gv.name_hint, free)
        if key not in self.copies:
            new = GlobalVar(fresh_name(gv.name_hint, self.names))
            self.names.add(new.name_hint)
            # fresh vars and buffers: two copies of one prim_func must not share definitions
            self.added[new] = renew_defs(prim).with_attr("layout_free_buffers", list(free))
            self.copies[key] = new
            self.replaced.add(gv.name_hint)
        return self.copies[key]

def called_global_names(funcs: dict[GlobalVar, Any]) -> set[str]:
    """Names of the functions some relax function still refers to."""
    from ..ir.analysis import _nodes

    return {n.gvar.name_hint for f in funcs.values() if isinstance(f, rx.Function)
            for n in _nodes(f) if isinstance(n, rx.GlobalVarRef)}
