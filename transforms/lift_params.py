"""LiftTransformParams: move the computations that depend only on weights out of a function.

A function with the attribute `num_input = k` takes k run-time inputs followed by weights.
Every pure binding computed from weights (and constants) alone moves to a new function,
`<name>_transform_params(model_params: R.Tuple(weights...))`, which returns the values the
original function still needs: the weights it reads directly, then the lifted results. The
original function then takes its inputs followed by those values. Run the transform once,
ahead of time, and feed its outputs to every later call (TVM's form).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars, var_use_counts
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_DPS_PACKED
from .pass_infra import Pass, PassContext


def _pure(value: rx.Expr) -> bool:
    if isinstance(value, rx.Call):
        return not isinstance(value.op, rx.ExternFunc) and value.op != CALL_DPS_PACKED
    return not isinstance(value, (rx.Function, rx.If))


def _split(func: rx.Function, weights: list[rx.Var]) -> tuple[list[Any], list[rx.BindingBlock]]:
    """The liftable bindings, and the blocks with what stays."""
    known = set(weights)
    lifted: list[Any] = []
    blocks = []
    for blk in func.body.blocks:
        keep = []
        for b in blk.bindings:
            uses = set(var_use_counts(b.value))
            if isinstance(b, rx.VarBinding) and _pure(b.value) and uses <= known:
                lifted.append(b)
                known.add(b.var)
            else:
                keep.append(b)
        blocks.append(replace(blk, bindings=tuple(keep)))
    return lifted, blocks


def _transform_function(weights: list[rx.Var], lifted: list[Any], outputs: list[rx.Var]
                        ) -> rx.Function:
    tuple_sinfo = si.TupleStructInfo(tuple(w.struct_info for w in weights))
    packed = rx.Var("model_params", tuple_sinfo)
    mapping: dict[rx.Var, rx.Expr] = {}
    bindings: list[Any] = []
    for i, w in enumerate(weights):
        local = rx.DataflowVar(w.name_hint, w.struct_info)
        bindings.append(rx.VarBinding(local, rx.TupleGetItem(packed, i, w.struct_info)))
        mapping[w] = local
    for b in lifted:
        local = rx.DataflowVar(b.var.name_hint, b.var.struct_info)
        bindings.append(rx.VarBinding(local, substitute_vars(b.value, mapping)))
        mapping[b.var] = local
    fields = tuple(mapping[o] for o in outputs)
    out_sinfo = si.TupleStructInfo(tuple(f.struct_info for f in fields))
    result = rx.Var("output_tuple", out_sinfo)
    bindings.append(rx.VarBinding(result, rx.Tuple(fields, out_sinfo)))
    body = rx.SeqExpr((rx.DataflowBlock(tuple(bindings)),), result)
    return rx.Function((packed,), body, out_sinfo, True, (("num_input", 0),))


def lift_function(func: rx.Function) -> tuple[rx.Function, rx.Function] | None:
    k = func.attr_dict.get("num_input")
    if k is None:
        return None
    k = int(getattr(k, "value", k))
    inputs, weights = list(func.params[:k]), list(func.params[k:])
    lifted, blocks = _split(func, weights)
    rest = rx.SeqExpr(tuple(blocks), func.body.body)
    used = var_use_counts(rest)
    lifted_vars = [b.var for b in lifted]
    outputs = [w for w in weights if w in used] + [v for v in lifted_vars if v in used]
    transform = _transform_function(weights, lifted, outputs)
    new_params = {o: rx.Var(o.name_hint, o.struct_info) for o in outputs}
    body = substitute_vars(rest, new_params)
    main = replace(func, params=tuple(inputs) + tuple(new_params[o] for o in outputs),
                   body=body)
    return main, transform


def LiftTransformParams(shared_transform: bool | list[str] = False) -> Pass:  # noqa: N802
    """Lift weight-only computations of functions with `num_input` into
    `<name>_transform_params`."""
    if shared_transform:
        raise NotImplementedError("LiftTransformParams(shared_transform=...) (one transform "
                                  "for several functions) is not supported; lift each "
                                  "function separately")

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs: dict[GlobalVar, Any] = {}
        for gv, f in mod.items():
            split = lift_function(f) if isinstance(f, rx.Function) else None
            if split is None:
                funcs[gv] = f
                continue
            main, transform = split
            name = f"{gv.name_hint}_transform_params"
            funcs[GlobalVar(name)] = transform.with_attr("global_symbol", name) \
                if "global_symbol" in f.attr_dict else transform
            funcs[gv] = main
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "LiftTransformParams")
