"""The operators of TVM's `relax.op.base` beyond call_tir: shapes as values (`shape_of`,
`shape_to_tensor`, `tensor_to_shape`, `size`), `null_value`, device hints (`hint_on_device`,
`to_vdevice`), `builtin.stop_lift_params`, `wrap_param`, and the packed-call forms
`call_inplace_packed`, `call_builtin_with_ctx`, `make_closure`, `invoke_closure`.

Each op that the VM runs without a kernel names the VM builtin it lowers to (`vm_builtin`);
`wrap_param` and `size` are legalized to computes (transforms/legalize/rules_base.py).
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from ..module import GlobalVar
from ..op import get_op, register_op
from .base import ELEMWISE, INJECTIVE, OPAQUE, as_expr, call, op_error, tensor_arg

_INT64 = "int64"


def _infer_shape_of(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.shape_of", c, 0, "the input")
    return si.ShapeStructInfo(x.shape, x.ndim)


def _infer_shape_to_tensor(c: rx.Call) -> si.StructInfo:
    s = c.args[0].struct_info
    if not isinstance(s, si.ShapeStructInfo):
        raise op_error("relax.shape_to_tensor", f"the input must be a shape (R.Shape), got "
                                                 f"{type(s).__name__}")
    n = len(s.values) if s.values is not None else s.ndim
    return si.TensorStructInfo(None if n < 0 else (tx.const(n, _INT64),), _INT64, 1)


def _infer_tensor_to_shape(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.tensor_to_shape", c, 0, "the input")
    if x.ndim not in (-1, 1):
        raise op_error("relax.tensor_to_shape", f"the input must be a 1-d tensor, got rank "
                                                f"{x.ndim}")
    if x.dtype and not x.dtype.startswith("int"):
        raise op_error("relax.tensor_to_shape", f"the input must hold integers, got {x.dtype}")
    n = x.shape[0] if x.shape is not None else None
    return si.ShapeStructInfo(None, n.value if isinstance(n, tx.IntImm) else -1)


def _infer_size(c: rx.Call) -> si.StructInfo:
    tensor_arg("relax.size", c, 0, "the input")
    return si.TensorStructInfo((), _INT64, 0)


def _infer_same(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    return tensor_arg(name, c, 0, "the input")


def _infer_to_vdevice(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.to_vdevice", c, 0, "the input")
    return si.TensorStructInfo(x.shape, x.dtype, x.ndim, c.attr("dst_vdevice"))


def _infer_wrap_param(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.wrap_param", c, 0, "the input")
    return si.TensorStructInfo(x.shape, c.attr("dtype"), x.ndim)


def _infer_from_sinfo_args(c: rx.Call) -> si.StructInfo:
    if not c.sinfo_args:
        return si.ObjectStructInfo()
    if len(c.sinfo_args) == 1:
        return c.sinfo_args[0]
    return si.TupleStructInfo(tuple(c.sinfo_args))


def _sinfo_list(sinfo_args: Any) -> tuple[si.StructInfo, ...]:
    if sinfo_args is None:
        return ()
    items = sinfo_args if isinstance(sinfo_args, (list, tuple)) else (sinfo_args,)
    out = []
    for s in items:
        s = s() if callable(s) and not isinstance(s, si.StructInfo) else s
        if not isinstance(s, si.StructInfo):
            raise TypeError(f"ty_args takes struct info such as R.Tensor(...), not {s!r}")
        out.append(s)
    return tuple(out)


def _with_sinfo(name: str, args: tuple[rx.Expr, ...], sinfo_args: Any,
                attrs: tuple[tuple[str, Any], ...] = ()) -> rx.Call:
    sargs = _sinfo_list(sinfo_args)
    c = rx.Call(get_op(name), args, attrs, sinfo_args=sargs)
    return rx.Call(c.op, c.args, c.attrs, sinfo_args=sargs, struct_info=_infer_from_sinfo_args(c))


def _extern(func: Any) -> rx.Expr:
    if isinstance(func, str):
        return rx.ExternFunc(func)
    return as_expr(func)


def _args_tuple(args: Any) -> rx.Expr:
    if isinstance(args, rx.Expr) and isinstance(args.struct_info, si.TupleStructInfo):
        return args
    return as_expr(tuple(args) if isinstance(args, (list, tuple)) else (args,))


# -- builders (TVM 0.27's signatures) ------------------------------------------------------------


def shape_of(expr: Any) -> rx.Call:
    """The shape of a tensor as a value (`R.Shape`)."""
    return call("relax.shape_of", (expr,))


def null_value() -> rx.Call:
    """A null object (`R.Object`)."""
    return call("relax.null_value", ())


def size(expr: Any) -> rx.Call:
    """The number of elements of a tensor, as a 0-d int64 tensor."""
    return call("relax.size", (expr,))


def shape_to_tensor(expr: Any) -> rx.Call:
    """A shape value as a 1-d int64 tensor."""
    return call("relax.shape_to_tensor", (expr,))


def tensor_to_shape(expr: Any) -> rx.Call:
    """A 1-d integer tensor as a shape value (its dims known at run time only)."""
    return call("relax.tensor_to_shape", (expr,))


def hint_on_device(data: Any, dst_vdevice: Any, memory_scope: str = "global") -> rx.Call:
    """Hint that `data` should live on `dst_vdevice` (a `tvm.cpu()`-style Device)."""
    dev_type = getattr(dst_vdevice, "device_type", None)
    if dev_type is None:
        raise TypeError(f"R.hint_on_device: dst_vdevice must be a device such as R.cpu(), not "
                        f"{dst_vdevice!r}")
    return call("relax.hint_on_device", (data,), device_type=int(dev_type),
                index=int(getattr(dst_vdevice, "device_id", 0)), memory_scope=memory_scope)


def to_vdevice(data: Any, dst_vdevice: Any) -> rx.Call:
    """Copy `data` to the virtual device `dst_vdevice` (`"llvm"`, `"cuda:0"`, a VDevice)."""
    target = getattr(dst_vdevice, "target", None)
    name = str(dst_vdevice) if target is None else f"{getattr(target, 'kind', target)}"
    return call("relax.to_vdevice", (data,), dst_vdevice=name)


def stop_lift_params(x: Any) -> rx.Call:
    """Mark where LiftTransformParams stops lifting weight computations (an identity)."""
    return call("relax.builtin.stop_lift_params", (x,))


def wrap_param(data: Any, dtype: Any = "float32") -> rx.Call:
    """Cast a model parameter to `dtype` (kept apart from `astype` so passes can tell)."""
    return call("relax.wrap_param", (data,), dtype=str(getattr(dtype, "dtype", dtype)))


def call_inplace_packed(func: Any, *args: Any, inplace_indices: Any, sinfo_args: Any = None,
                        ty_args: Any = None) -> rx.Call:
    """Call a registered function that writes its results into the arguments at
    `inplace_indices` and returns them."""
    indices = [inplace_indices] if isinstance(inplace_indices, int) else list(inplace_indices)
    indices = [int(getattr(i, "value", i)) for i in indices]
    sargs = _sinfo_list(sinfo_args if sinfo_args is not None else ty_args)
    if len(indices) != max(len(sargs), 1) or any(not -1 <= i < len(args) for i in indices) \
            or all(i == -1 for i in indices):
        raise op_error("relax.call_inplace_packed", f"inplace_indices {indices} must name one "
                       f"argument (of {len(args)}) or -1 for each of the {len(sargs)} results, "
                       f"at least one of them an argument")
    exprs = (_extern(func), *(as_expr(a) for a in args))
    return _with_sinfo("relax.call_inplace_packed", exprs, sargs,
                       (("inplace_indices", tuple(indices)),))


def call_builtin_with_ctx(func: Any, args: Any, *, sinfo_args: Any = None,
                          ty_args: Any = None) -> rx.Call:
    """Call a VM builtin that takes the VM's context before `args`."""
    return _with_sinfo("relax.call_builtin_with_ctx", (_extern(func), _args_tuple(args)),
                       sinfo_args if sinfo_args is not None else ty_args)


def make_closure(func: Any, args: Any) -> rx.Call:
    """A closure: `func` with its leading arguments `args` bound."""
    if isinstance(func, GlobalVar):
        func = rx.GlobalVarRef(func, si.FuncStructInfo(None, si.ObjectStructInfo()))
    return call("relax.make_closure", (func, _args_tuple(args)))


def invoke_closure(closure: Any, args: Any, sinfo_args: Any = None, ty_args: Any = None
                   ) -> rx.Call:
    """Call a closure with the remaining arguments."""
    return _with_sinfo("relax.invoke_closure", (as_expr(closure), _args_tuple(args)),
                       sinfo_args if sinfo_args is not None else ty_args)


def invoke_pure_closure(closure: Any, args: Any, sinfo_args: Any = None, ty_args: Any = None
                        ) -> rx.Call:
    """`invoke_closure` that the compiler may treat as pure."""
    return _with_sinfo("relax.invoke_pure_closure", (as_expr(closure), _args_tuple(args)),
                       sinfo_args if sinfo_args is not None else ty_args)


def _reg(name: str, infer: Any, make: Any, pattern: int = OPAQUE, builtin: str | None = None,
         **attrs: Any) -> None:
    register_op(name, infer_struct_info=infer, make=make, op_pattern=pattern,
                vm_builtin=builtin, **attrs)


_reg("relax.shape_of", _infer_shape_of, shape_of, builtin="vm.builtin.shape_of")
_reg("relax.null_value", lambda c: si.ObjectStructInfo(), null_value,
     builtin="vm.builtin.null_value")
_reg("relax.size", _infer_size, size, INJECTIVE)
_reg("relax.shape_to_tensor", _infer_shape_to_tensor, shape_to_tensor,
     builtin="vm.builtin.shape_to_tensor")
_reg("relax.tensor_to_shape", _infer_tensor_to_shape, tensor_to_shape,
     builtin="vm.builtin.tensor_to_shape")
_reg("relax.hint_on_device", _infer_same, hint_on_device, builtin="vm.builtin.copy")
_reg("relax.to_vdevice", _infer_to_vdevice, to_vdevice, builtin="vm.builtin.copy")
_reg("relax.builtin.stop_lift_params", _infer_same, stop_lift_params, builtin="vm.builtin.copy")
_reg("relax.wrap_param", _infer_wrap_param, wrap_param, ELEMWISE)
_reg("relax.call_inplace_packed", _infer_from_sinfo_args, call_inplace_packed,
     builtin="extern")
_reg("relax.call_builtin_with_ctx", _infer_from_sinfo_args, call_builtin_with_ctx,
     builtin="extern")
def _format_expr(format: Any) -> rx.StringImm:  # noqa: A002 (TVM's name)
    """A format given as a Python string or as `R.str("...")`."""
    return format if isinstance(format, rx.StringImm) else rx.StringImm(str(format))


def print_values(*values: Any, format: Any = "") -> rx.Call:  # noqa: A002 (TVM's name)
    """`relax.print`: print the values at run time (impure); its arguments are the format,
    then the values, as TVM's operator takes them."""
    return call("relax.print", (_format_expr(format), *values))


def assert_op(condition: Any, format_args: Any = None, format: Any = "") -> rx.Call:  # noqa: A002
    """`relax.assert_op`: fail at run time when `condition` is false (impure); its arguments
    are the condition, the format, then the values to format."""
    items = () if format_args is None else (
        tuple(format_args) if isinstance(format_args, (list, tuple)) else (format_args,))
    return call("relax.assert_op", (condition, _format_expr(format), *items))


def _infer_void(c: rx.Call) -> si.StructInfo:
    return si.TupleStructInfo(())


def call_py_func(func_name: Any, args: Any, out_ty: Any = None, *,
                 out_sinfo: Any = None, ty_args: Any = None) -> rx.Call:
    """`relax.op.call_py_func(R.str("f"), (x,), out_ty)`: call the Python function registered
    as `f` (`vm.builtin.register_py_func`, or an `@I.pyfunc` of a BasePyModule) on the
    arguments; it returns the tensor(s) `out_ty` describes (each with a known shape)."""
    if not isinstance(func_name, rx.StringImm):
        raise TypeError(f"relax.call_py_func: Mismatched type: the function name must be a "
                        f"StringImm (R.str(...)), got {type(func_name).__name__}")
    given = [s for s in (out_ty, out_sinfo, ty_args) if s is not None]
    outs = _sinfo_list(given[0] if given else None)
    if not outs:
        raise op_error("relax.call_py_func", "out_ty is required (the result's R.Tensor)")
    for s in outs:
        if not isinstance(s, si.TensorStructInfo) or s.shape is None:
            raise op_error("relax.call_py_func", f"each out_ty must be a tensor of known "
                           f"shape (R.Tensor((...), dtype)), got {s}")
    return _with_sinfo("relax.call_py_func", (func_name, _args_tuple(args)), outs)


_reg("relax.print", _infer_void, print_values, builtin="relax.run.print", impure=True)
_reg("relax.assert_op", _infer_void, assert_op, builtin="relax.run.assert_op", impure=True)
_reg("relax.call_py_func", _infer_from_sinfo_args, call_py_func,
     builtin="vm.builtin.call_py_func")
_reg("relax.make_closure", lambda c: si.ObjectStructInfo(), make_closure, builtin="closure")
_reg("relax.invoke_closure", _infer_from_sinfo_args, invoke_closure, builtin="closure")
_reg("relax.invoke_pure_closure", _infer_from_sinfo_args, invoke_pure_closure,
     builtin="closure")

__all__ = ["shape_of", "null_value", "size", "shape_to_tensor", "tensor_to_shape",
           "hint_on_device", "to_vdevice", "stop_lift_params", "wrap_param",
           "call_inplace_packed", "call_builtin_with_ctx", "call_py_func", "make_closure",
           "invoke_closure", "invoke_pure_closure"]
