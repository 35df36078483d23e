"""ReshapeAsView: reshape-like operators become views of their input in the build, as TVM's
RewriteDataflowReshape + `vm.builtin.reshape` make them.

`reshape`, `flatten`, `expand_dims` and `squeeze` keep a tensor's elements in order, so the
result can share the input's memory. Legalized, each is a kernel copying every element with
div/mod index arithmetic (BERT's layer spent 1.2 of its 10 ms in eight of them). Here each
becomes `R.call_pure_packed("vm.builtin.reshape", x, R.shape(out))`: the VM returns a view
(vm/builtins.py), and the native fast path reads the input's memory directly
(vm/static_plan.py), so no kernel runs and nothing is copied.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import IRModule
from ..ir.op import CALL_PURE_PACKED
from .pass_infra import Pass, PassContext

RESHAPE_OPS = frozenset({"relax.reshape", "relax.flatten", "relax.expand_dims",
                         "relax.squeeze"})
BUILTIN = "vm.builtin.reshape"


def ReshapeAsView() -> Pass:  # noqa: N802 (a pass, named as TVM names them)
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _rewrite(f) if isinstance(f, rx.Function)
                                 else f)

    return Pass(run, "ReshapeAsView")


def as_view(value: Any) -> rx.Call | None:
    """The view call for a reshape-like call with a known result shape, else None."""
    if not (isinstance(value, rx.Call) and getattr(value.op, "name", "") in RESHAPE_OPS):
        return None
    out, src = value.struct_info, value.args[0].struct_info
    if not (isinstance(out, si.TensorStructInfo) and isinstance(src, si.TensorStructInfo)
            and out.shape is not None and out.dtype and out.dtype == src.dtype):
        return None
    shape = rx.ShapeExpr(tuple(out.shape), si.ShapeStructInfo(tuple(out.shape)))
    return rx.Call(CALL_PURE_PACKED, (rx.ExternFunc(BUILTIN), value.args[0], shape),
                   sinfo_args=(out,), struct_info=out)


def _rewrite(func: rx.Function) -> rx.Function:
    changed = False
    blocks = []
    for blk in func.body.blocks:
        bindings = []
        for b in blk.bindings:
            view = as_view(b.value) if isinstance(b, rx.VarBinding) else None
            if view is not None:
                b, changed = replace(b, value=view), True
            bindings.append(b)
        blocks.append(replace(blk, bindings=tuple(bindings)))
    return replace(func, body=replace(func.body, blocks=tuple(blocks))) if changed else func
