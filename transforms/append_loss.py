"""`relax.training.AppendLoss`: join a loss function to a model's forward function.

`AppendLoss("main", loss, num_backbone_outputs=1)` adds `main_loss(*main's params, *loss's
other params)`: main's bindings, then the loss's, the loss reading main's first
`num_backbone_outputs` return values as its first parameters. It returns the loss, followed by
main's other return values (the updated states) when there are any. Both functions must be one
dataflow block; main returns a variable or a flat tuple of them, the loss a scalar variable.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.module import IRModule
from ..ir.structural import structural_equal
from .function_copy import FunctionCopier
from .pass_infra import Pass


class AppendLossError(RuntimeError):
    """Functions AppendLoss cannot join (TVM raises an InternalError)."""


def _only_block(func: rx.Function, what: str) -> rx.DataflowBlock:
    blocks = func.body.blocks
    if len(blocks) != 1 or not isinstance(blocks[0], rx.DataflowBlock):
        raise AppendLossError(f"AppendLoss: the {what} function must be one dataflow block")
    return blocks[0]


def _returned_vars(func: rx.Function) -> list[rx.Var]:
    ret = func.body.body
    values = list(ret.fields) if isinstance(ret, rx.Tuple) else [ret]
    if not all(isinstance(v, rx.Var) for v in values):
        raise AppendLossError("AppendLoss: the backbone must return a variable or a tuple "
                              "of variables")
    return values  # type: ignore[return-value]


def _check_loss(loss: rx.Function, n: int) -> rx.Var:
    ret = loss.body.body
    sinfo = ret.struct_info
    if not isinstance(ret, rx.Var) or not isinstance(sinfo, si.TensorStructInfo) or \
            sinfo.ndim != 0:
        raise AppendLossError("AppendLoss: the loss function must return a scalar variable")
    if len(loss.params) < n:
        raise AppendLossError(f"AppendLoss: the loss takes {len(loss.params)} parameters, "
                              f"fewer than the {n} backbone outputs")
    return ret


def _as_dataflow(bindings: list[rx.Binding], keep: set[rx.Var]) -> list[rx.Binding]:
    """Outputs of the joined block that are no longer returned become dataflow variables."""
    remap: dict[rx.Var, rx.Expr] = {}
    out = []
    for b in bindings:
        var = b.var
        if not isinstance(var, rx.DataflowVar) and var not in keep:
            remap[var] = var = rx.DataflowVar(var.name_hint, var.struct_info)
        out.append(replace(b, var=var, value=substitute_vars(b.value, remap)))
    return out


def append_loss(mod: IRModule, func_name: str, loss_function: rx.Function,
                num_backbone_outputs: int = 1, new_func_name: str | None = None) -> IRModule:
    backbone = FunctionCopier().copy(mod[func_name])
    loss = FunctionCopier().copy(loss_function)
    block, loss_block = _only_block(backbone, "backbone"), _only_block(loss, "loss")
    outs, n = _returned_vars(backbone), num_backbone_outputs
    loss_ret = _check_loss(loss, n)
    if len(outs) < n:
        raise AppendLossError(f"AppendLoss: the backbone returns {len(outs)} values, fewer "
                              f"than num_backbone_outputs={n}")
    for out, param in zip(outs[:n], loss.params[:n]):
        if not structural_equal(out.struct_info, param.struct_info):
            raise AppendLossError(f"AppendLoss: the backbone output {out.name_hint} "
                                  f"({out.struct_info}) does not fit the loss parameter "
                                  f"{param.name_hint} ({param.struct_info})")
    feed = dict(zip(loss.params[:n], outs))
    joined = list(block.bindings) + [replace(b, value=substitute_vars(b.value, feed))
                                     for b in loss_block.bindings]
    rest = outs[n:]
    ret: rx.Expr = rx.Tuple((loss_ret, *rest)) if rest else loss_ret
    bindings = _as_dataflow(joined, {loss_ret, *rest})
    name = new_func_name or func_name + "_loss"
    func = rx.Function(backbone.params + loss.params[n:],
                       rx.SeqExpr((rx.DataflowBlock(tuple(bindings)),), ret),
                       ret.struct_info, backbone.is_pure, backbone.attrs)
    return mod.with_function(name, func.with_attr("global_symbol", name))


def AppendLoss(func_name: str, loss_function: Any,  # noqa: N802 (TVM's name)
               num_backbone_outputs: int = 1, new_func_name: str | None = None) -> Pass:
    """Add `<func_name>_loss`: the backbone followed by the loss (see the module doc)."""
    return Pass(lambda mod, ctx: append_loss(mod, func_name, loss_function,
                                             num_backbone_outputs, new_func_name),
                "AppendLoss")
