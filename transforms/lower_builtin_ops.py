"""VM lowering of the operators that run as one builtin or packed call, without a kernel
(`shape_of`, `null_value`, `shape_to_tensor`, `tensor_to_shape`, the device hints, and the
packed-call forms `call_inplace_packed` / `call_builtin_with_ctx`; see ir/ops/runtime_ops.py)."""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, ExternFunc, GlobalVarRef, PrimValue, ShapeExpr, Tuple
from ..ir.op import CALL_TIR, get_op, op_attr
from ..vm import bytecode as bc


def lower_builtin_op(fn: Any, call: Call, builtin: str) -> bc.Arg:
    """Emit `call` into `fn` (a FunctionLowering) as a call of `builtin`; "extern" means the
    call's first argument names the function (an ExternFunc) and the rest are its arguments.
    NOTE: `call_builtin_with_ctx` passes no VM context: tvmlite's builtins take none."""
    if builtin == "call_tir_dyn":
        return _lower_call_tir_dyn(fn, call)
    if builtin == "closure":
        return _lower_closure_op(fn, call)
    if builtin == "extern":
        target, rest = call.args[0], call.args[1:]
        if not isinstance(target, ExternFunc):
            raise TypeError(f"{call.op.name}: the callee must be a registered function name, "
                            f"got {type(target).__name__}")
        if len(rest) == 1 and call.op.name == "relax.call_builtin_with_ctx":
            if isinstance(rest[0], Tuple):
                rest = rest[0].fields
            elif isinstance(rest[0], ShapeExpr):  # `[R.prim_value(3)]` parses as a shape
                rest = tuple(PrimValue(v) for v in rest[0].values)
        builtin = target.global_symbol
    else:
        rest = call.args
    # attributes the builtin takes after the arguments (ir/ops/vision_nms.py), as constants
    attrs = [fn.b.const(call.attr(k)) for k in op_attr(call.op.name, "vm_builtin_attrs", ())]
    r = fn.new_reg()
    fn.emit(builtin, [fn.value_of(a) for a in rest] + attrs, dst=r)
    return bc.reg(r)


def _lower_closure_op(fn: Any, call: Call) -> bc.Arg:
    """`make_closure(f, (captured...))` packs a VM function with the values it captures;
    `invoke_closure(c, (args...))` calls it with the captured values first (vm/builtins.py)."""
    head, args = call.args[0], call.args[1]
    fields = list(args.fields) if isinstance(args, Tuple) else [args]
    builtin = "vm.builtin.make_closure" if call.op.name == "relax.make_closure" else \
        "vm.builtin.invoke_closure"
    r = fn.new_reg()
    fn.emit(builtin, [fn.value_of(head)] + [fn.value_of(a) for a in fields], dst=r)
    return bc.reg(r)


def _lower_call_tir_dyn(fn: Any, call: Call) -> bc.Arg:
    """`R.vm.call_tir_dyn(f, (tensors..., R.shape([values])))`: the kernel `f` called on the
    tensors (inputs and outputs alike, written in place) and its scalar parameters."""
    callee, args = call.args[0], call.args[1]
    assert isinstance(args, Tuple)
    fields = list(args.fields)
    values = fields.pop() if fields and isinstance(fields[-1], ShapeExpr) else ShapeExpr(())
    kname = callee.gvar.name_hint if isinstance(callee, GlobalVarRef) else \
        getattr(callee, "global_symbol", None)
    if kname is None or kname not in fn.mod:
        if kname is None:
            raise TypeError(f"R.vm.call_tir_dyn: the callee must be a prim_func of the module, "
                            f"got {type(callee).__name__}")
        fn.emit(kname, [fn.value_of(a) for a in fields + [values]])
        return fn.value_of(Tuple(()))
    sig = fn.b.kernel_signature(kname)
    tensors = [fn.value_of(a) for a in fields]
    buffers = [p for p in sig.params if p.kind == "buffer"]
    if len(buffers) != len(tensors):
        raise TypeError(f"R.vm.call_tir_dyn: {kname} takes {len(buffers)} buffers, the call "
                        f"passes {len(tensors)} tensors")
    bound: dict[str, bc.Arg] = {}
    for param, arg, arg_arg in zip(buffers, fields, tensors):
        fn.match_buffer(kname, param, arg.struct_info, arg_arg, bound)
    as_call_tir = Call(CALL_TIR, (callee, args, values))
    scalars = fn.scalar_args(kname, sig, as_call_tir, bound)
    shape_args = fn.shape_var_args(kname, sig, bound)
    fn.emit(kname, fn.kernel_args(sig, tensors, scalars) + shape_args, kind="kernel")
    return fn.value_of(Tuple(()))


def as_call_tir_dyn(call: Call) -> Call:
    """A direct call of a module prim_func, `f(x, y, out)` (TVM's form after CallTIRRewrite),
    as the `R.vm.call_tir_dyn` it means."""
    return Call(get_op("relax.vm.call_tir_dyn"), (call.op, Tuple(call.args)))
