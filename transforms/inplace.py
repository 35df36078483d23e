"""DataflowUseInplaceCalls (TVM's pass): an elementwise operator whose operand dies at the call
writes its result into that operand instead of a new tensor.

Inside dataflow blocks, an operand qualifies when it is a dataflow variable bound to a fresh
result (an operator or kernel call, not a view or a renaming), read for the last time by this
call, with the result's shape and dtype. The call is legalized to a kernel whose output buffer
is that operand's buffer (`<op>_inplace`), called with `R.call_tir_inplace`.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_TIR, CALL_TIR_INPLACE
from ..ir.structural import structural_equal
from ..tir.function import PrimFunc
from ..tir.stmt import Buffer
from .pass_infra import Pass, PassContext

_ELEMENTWISE = {f"relax.{n}" for n in (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "exp", "log",
    "sqrt", "tanh", "sigmoid", "negative", "abs", "nn.relu", "nn.silu", "nn.gelu")}
_VIEWS = {"relax.reshape", "relax.expand_dims", "relax.squeeze", "relax.flatten"}


def _replace_buffer(node: Any, old: Buffer, new: Buffer, memo: dict[int, Any]) -> Any:
    """`node` with every reference to buffer `old` replaced by `new`."""
    if node is old:
        return new
    key = id(node)
    if key in memo:
        return memo[key]
    out = node
    if isinstance(node, tuple):
        items = tuple(_replace_buffer(x, old, new, memo) for x in node)
        out = node if all(a is b for a, b in zip(items, node)) else type(node)(items)
    elif is_dataclass(node) and not isinstance(node, type) and not isinstance(node, Buffer):
        changes = {f.name: v for f in fields(node) if f.init
                   for v in [_replace_buffer(getattr(node, f.name), old, new, memo)]
                   if v is not getattr(node, f.name)}
        out = replace(node, **changes) if changes else node
    memo[key] = out
    return out


def _inplace_kernel(func: PrimFunc, index: int) -> PrimFunc:
    """`func` (inputs then one output) writing its output into input `index`."""
    buffers = [func.buffer_of(p) for p in func.params]
    out_param = func.params[-1]
    body = _replace_buffer(func.body, buffers[-1], buffers[index], {})
    return replace(func, params=func.params[:-1], body=body,
                   buffer_map=tuple((p, b) for p, b in func.buffer_map if p is not out_param))


class _Inplace:
    def __init__(self, mod: IRModule, funcs: dict[GlobalVar, Any]) -> None:
        self.mod, self.funcs = mod, funcs
        self.cache: dict[Any, GlobalVar] = {}

    def block(self, blk: rx.DataflowBlock, params: set[rx.Var]) -> rx.DataflowBlock:
        values = {b.var: b.value for b in blk.bindings}
        last: dict[rx.Var, int] = {}
        for i, b in enumerate(blk.bindings):
            for v in var_use_counts(b.value):
                last[v] = i
        out = []
        for i, b in enumerate(blk.bindings):
            new = self.rewrite(b, i, values, last) if isinstance(b, rx.VarBinding) else None
            out.append(b if new is None else replace(b, value=new))
        return replace(blk, bindings=tuple(out))

    def eligible(self, arg: Any, i: int, call: rx.Call, values: dict[rx.Var, Any],
                 last: dict[rx.Var, int]) -> bool:
        if not isinstance(arg, rx.DataflowVar) or last.get(arg) != i:
            return False
        bound = values.get(arg)
        fresh = isinstance(bound, rx.Call) and (
            bound.op in (CALL_TIR, CALL_TIR_INPLACE) or isinstance(bound.op, rx.Op) and
            bound.op.name not in _VIEWS and not bound.op.name.startswith("relax.call"))
        s, o = arg.struct_info, call.struct_info
        return fresh and isinstance(s, si.TensorStructInfo) and isinstance(
            o, si.TensorStructInfo) and s.dtype == o.dtype and s.shape is not None and \
            o.shape is not None and structural_equal(tuple(s.shape), tuple(o.shape))

    def rewrite(self, b: Any, i: int, values: dict[rx.Var, Any], last: dict[rx.Var, int]
                ) -> rx.Expr | None:
        call = b.value
        if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op) and
                call.op.name in _ELEMENTWISE):
            return None
        chosen = [j for j, a in enumerate(call.args)
                  if self.eligible(a, i, call, values, last)]
        if not chosen:
            return None
        return self.inplace_call(call, chosen[-1])

    def inplace_call(self, call: rx.Call, index: int) -> rx.Expr | None:
        from .legalize import LEGALIZE, TEEmitter, _Legalizer

        scratch: dict[GlobalVar, Any] = {}
        lowered = _Legalizer(TEEmitter(scratch), LEGALIZE).visit_Call(call)
        if lowered.op != CALL_TIR or len(scratch) != 1:
            return None
        (kernel,) = scratch.values()
        inputs = lowered.args[1]
        if len(kernel.params) != len(inputs.fields) + 1:
            return None
        # NOTE: a variable passed twice is one kernel input: find the target's position
        index = next((k for k, f in enumerate(inputs.fields) if f is call.args[index]), -1)
        if index < 0:
            return None
        key = (call.op.name, call.attrs, index,
               tuple(repr(a.struct_info) for a in inputs.fields))
        gv = self.cache.get(key)
        if gv is None:
            gv = GlobalVar(_fresh(call.op.name.split(".")[-1] + "_inplace", self.funcs))
            self.funcs[gv] = _inplace_kernel(kernel, index).with_attr("global_symbol",
                                                                      gv.name_hint)
            self.cache[key] = gv
        callee = replace(lowered.args[0], gvar=gv)
        return rx.Call(CALL_TIR_INPLACE, (callee, inputs), (("inplace_indices", (index,)),),
                       sinfo_args=(call.struct_info,), struct_info=call.struct_info)


def _fresh(base: str, funcs: dict[GlobalVar, Any]) -> str:
    names = {gv.name_hint for gv in funcs}
    if base not in names:
        return base
    i = 1
    while f"{base}{i}" in names:
        i += 1
    return f"{base}{i}"


def DataflowUseInplaceCalls() -> Pass:  # noqa: N802
    """Elementwise operators write into an operand that dies at the call (module docstring)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        rewriter = _Inplace(mod, funcs)
        for gv, f in mod.items():
            if not isinstance(f, rx.Function):
                continue
            blocks = tuple(rewriter.block(b, set(f.params)) if isinstance(b, rx.DataflowBlock)
                           else b for b in f.body.blocks)
            funcs[gv] = replace(f, body=replace(f.body, blocks=blocks))
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "DataflowUseInplaceCalls")
