"""VM lowering of the operators that run as one builtin or packed call, without a kernel
(`shape_of`, `null_value`, `shape_to_tensor`, `tensor_to_shape`, the device hints, and the
packed-call forms `call_inplace_packed` / `call_builtin_with_ctx`; see ir/ops/runtime_ops.py)."""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, ExternFunc, Tuple
from ..vm import bytecode as bc


def lower_builtin_op(fn: Any, call: Call, builtin: str) -> bc.Arg:
    """Emit `call` into `fn` (a FunctionLowering) as a call of `builtin`; "extern" means the
    call's first argument names the function (an ExternFunc) and the rest are its arguments.
    NOTE: `call_builtin_with_ctx` passes no VM context: tvmlite's builtins take none."""
    if builtin == "extern":
        target, rest = call.args[0], call.args[1:]
        if not isinstance(target, ExternFunc):
            raise TypeError(f"{call.op.name}: the callee must be a registered function name, "
                            f"got {type(target).__name__}")
        if len(rest) == 1 and isinstance(rest[0], Tuple) and \
                call.op.name == "relax.call_builtin_with_ctx":
            rest = rest[0].fields
        builtin = target.global_symbol
    else:
        rest = call.args
    r = fn.new_reg()
    fn.emit(builtin, [fn.value_of(a) for a in rest], dst=r)
    return bc.reg(r)
