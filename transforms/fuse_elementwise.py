"""FuseElementwise: a chain of elementwise operators becomes one kernel, one loop over the
output, no intermediate tensors (what TVM's FuseOps + FuseTIR + compute_inline do for
injective chains).

Exported graphs often spell one activation as several operators (ONNX's GELU: divide, erf,
add, multiply, multiply; each a full pass over the activation). A group starts at an
elementwise call and takes each later call reading the group while it is elementwise over
the same output shape (other operands may broadcast into it); a value may feed several
members (`y * erf(y)`), as long as nothing outside the group reads it. The group's
operators are legalized as LegalizeOps would (their te computes), then inlined into one
compute (te/inline.py); the fused call takes the group's last binding.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import IRModule
from ..ir.ops.elementwise import BINARY, NN_UNARY, UNARY
from ..te.inline import inline_injective
from .legalize.emit import TEEmitter
from .legalize.rules import LEGALIZE
from .pass_infra import Pass, PassContext
from .simple_passes import remove_unused

ELEMENTWISE = frozenset([f"relax.{n}" for n in (*BINARY, *UNARY, "clip")] +
                        [f"relax.nn.{n}" for n in NN_UNARY])


def FuseElementwise() -> Pass:  # noqa: N802 (a pass, named as TVM names them)
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        emitter = TEEmitter(funcs)
        for gv, func in mod.items():
            if isinstance(func, rx.Function):
                new = _rewrite(func, emitter)
                if new is not func:
                    funcs[gv] = remove_unused(new)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))

    return Pass(run, "FuseElementwise")


def _rewrite(func: rx.Function, emitter: TEEmitter) -> rx.Function:
    uses = var_use_counts(*(b.value for blk in func.body.blocks for b in blk.bindings),
                          func.body.body)
    taken: set[rx.Var] = set()
    replaced: dict[rx.Var, rx.Call] = {}
    for blk in func.body.blocks:
        bindings = list(blk.bindings)
        for k, b in enumerate(bindings):
            if b.var in taken or not (isinstance(b, rx.VarBinding) and _elementwise(b.value)):
                continue
            group = _group(bindings, k, uses)
            if len(group) > 1:
                taken.update(c.var for c in group)
                replaced[group[-1].var] = _fused_call(group, emitter)
    if not replaced:
        return func
    blocks = [replace(blk, bindings=tuple(
        replace(b, value=replaced[b.var]) if b.var in replaced else b for b in blk.bindings))
        for blk in func.body.blocks]
    return replace(func, body=replace(func.body, blocks=tuple(blocks)))


def _group(bindings: list[Any], start: int, uses: dict[rx.Var, int]) -> list[rx.VarBinding]:
    """The elementwise bindings from `start` on that read the group (a DAG: x * erf(x) is
    one group), up to the first other reader of a group value; then trimmed until only the
    last member's value is used outside the group."""
    group = [bindings[start]]
    members = {bindings[start].var}
    for b in bindings[start + 1:]:
        if not any(v in members for v in var_use_counts(b.value)):
            continue
        if not (isinstance(b, rx.VarBinding) and _elementwise(b.value)
                and _same_shape(b, group[0])):
            break
        group.append(b)
        members.add(b.var)
    while len(group) > 1:
        inside = var_use_counts(*(c.value for c in group))
        if all(inside.get(c.var, 0) == uses.get(c.var, 0) for c in group[:-1]):
            break
        group.pop()
    return group


def _elementwise(value: Any) -> bool:
    if not (isinstance(value, rx.Call) and getattr(value.op, "name", "") in ELEMENTWISE):
        return False
    out = value.struct_info
    return (isinstance(out, si.TensorStructInfo) and out.static_shape is not None
            and all(_known(a) for a in value.args))


def _known(e: rx.Expr) -> bool:
    s = e.struct_info
    if isinstance(s, si.TensorStructInfo):
        return s.shape is not None and bool(s.dtype)
    return isinstance(s, si.PrimStructInfo)


def _same_shape(b: rx.VarBinding, first: rx.VarBinding) -> bool:
    return b.value.struct_info.static_shape == first.value.struct_info.static_shape


def _fused_call(chain: list[rx.VarBinding], emitter: TEEmitter) -> rx.Call:
    """call_tir of one compute replaying the group's legalization rules, inlined."""
    inner = {c.var for c in chain}
    operands: list[rx.Expr] = []  # the chain's inputs, each once
    for c in chain:
        for a in c.value.args:
            if not (isinstance(a, rx.Var) and a in inner) and \
                    not any(a is o for o in operands):
                operands.append(a)

    def replay(*te_args: Any) -> Any:
        env: dict[int, Any] = {id(o): t for o, t in zip(operands, te_args)}
        out = None
        for c in chain:
            args = [env[id(a)] for a in c.value.args]
            out = LEGALIZE[c.value.op.name](c.value, *args)
            env[id(c.var)] = out
        return inline_injective(out)

    names = "_".join(c.value.op.name.split(".")[-1] for c in chain)
    return emitter.call_te(replay, operands, {}, f"fused_{names}"[:60],
                           out_sinfo=chain[-1].value.struct_info)
