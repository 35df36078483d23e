"""Operator-specific normalization (TVM's `FNormalize` attribute): an operator may rewrite a
call of itself into its canonical form whenever a mutator re-emits it
(`transforms/op_normalize.py` holds the mutator that applies it).

`FNormalize(builder, call) -> call` is looked up by op name; `builder` answers
`lookup_binding(var)` (what a variable is bound to, or None). The call_tir family registers
one here, as TVM does: the argument tuple is written inline (`call_tir(f, args)` with `args`
bound to `(A,)` becomes `call_tir(f, (A,))`; a tuple parameter `t` becomes `(t[0], ...)`).
TVMScript does not apply it, so a test can write the un-normalized form; `ir/well_formed.py`
reports a call that normalization would change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import expr as rx
from . import struct_info as si
from .op import op_attr, set_op_attr, with_inferred_struct_info


class _NoBindings:
    def lookup_binding(self, var: rx.Var) -> Any:
        return None


def normalize_op_call(call: rx.Call, builder: Any = None) -> rx.Call:
    """`call` after its operator's FNormalize (applied until it changes nothing)."""
    if not isinstance(call.op, rx.Op):
        return call
    rule = op_attr(call.op.name, "FNormalize")
    if rule is None:
        return call
    builder = builder if builder is not None else _NoBindings()
    for _ in range(8):  # a rule reaches its fixed point at once; the bound guards a bad one
        new = rule(builder, call)
        if new is call or _same_call(new, call):
            return call
        call = with_inferred_struct_info(new) if new.struct_info is None else new
    return call


def _same_call(a: Any, b: Any) -> bool:
    from .structural import structural_equal

    return structural_equal(a, b)


def _inline_argument_tuple(builder: Any, call: rx.Call) -> rx.Call:
    """call_tir's FNormalize: its second argument as an in-line tuple."""
    args = call.args[1] if len(call.args) > 1 else None
    if args is None or isinstance(args, rx.Tuple):
        return call
    bound = builder.lookup_binding(args) if isinstance(args, rx.Var) else None
    if isinstance(bound, rx.Tuple):
        inline = rx.Tuple(bound.fields)
    elif isinstance(args.struct_info, si.TupleStructInfo):
        inline = rx.Tuple(tuple(rx.TupleGetItem(args, i, struct_info=f)
                                for i, f in enumerate(args.struct_info.fields)))
    else:
        return call
    return replace(call, args=(call.args[0], inline, *call.args[2:]))


for _name in ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad"):
    if op_attr(_name, "FNormalize") is None:
        try:
            set_op_attr(_name, "FNormalize", _inline_argument_tuple)
        except KeyError:  # an operator this build does not register
            pass


def _destination_struct_info(call: rx.Call) -> si.StructInfo:
    """A destination-passing call gives what its `sinfo_args` declare (TVM infers call_tir's
    struct info so), also for a `relax.Call(op, args, ty_args=[...])` written by hand."""
    return call.sinfo_args[0] if call.sinfo_args else si.ObjectStructInfo()


for _name in ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad",
              "relax.call_dps_packed"):
    if op_attr(_name, "infer_struct_info") is None:
        try:
            set_op_attr(_name, "infer_struct_info", _destination_struct_info)
        except KeyError:  # an operator this build does not register
            pass
