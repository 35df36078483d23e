"""Explicit-memory operators, as TVM's memory planning and VM lowering print them:
`R.memory.alloc_storage / alloc_tensor / kill_storage / kill_tensor / view /
ensure_zero_offset`, `R.vm.alloc_storage / alloc_tensor / call_tir_dyn` and
`R.builtin.alloc_tensor`.

Their arguments are values, not attributes (TVM passes sizes as `R.shape`, device indices as
`R.prim_value`, scopes as `R.str` and dtypes as `R.dtype`). Each names the VM builtin it runs
as (`vm_builtin`; vm/storage.py); `call_tir_dyn` is lowered by transforms/lower_builtin_ops.py.
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from ..module import GlobalVar
from ..op import register_op
from .base import OPAQUE, as_expr, op_error, shape_expr, tensor_arg
from .memory_view import infer_view

_VOID = si.TupleStructInfo(())


def _dtype_expr(value: Any) -> rx.Expr:
    if isinstance(value, rx.Expr):
        return value
    return rx.DataTypeImm(str(getattr(value, "dtype", value)))


def _int_expr(value: Any) -> rx.Expr:
    if isinstance(value, rx.Expr):
        return value
    e = tx.const(int(getattr(value, "value", value)), "int64") \
        if not isinstance(value, tx.PrimExpr) or isinstance(value, tx.IntImm) else value
    return rx.PrimValue(e, si.PrimStructInfo(e.dtype, e))


def _shape_arg(value: Any) -> rx.Expr:
    if isinstance(value, rx.Expr):
        return value
    return shape_expr(tuple(value))


def _call(name: str, args: tuple[rx.Expr, ...]) -> rx.Call:
    c = rx.Call(register_op(name), args)
    return rx.Call(c.op, c.args, c.attrs, struct_info=_INFER[name](c))


def _arg(name: str, c: rx.Call, i: int, what: str, kinds: tuple[type, ...]) -> rx.Expr:
    if len(c.args) <= i:
        raise op_error(name, f"expects {what} as argument {i}, got {len(c.args)} arguments")
    a = c.args[i]
    sinfo = getattr(a, "struct_info", None)
    if isinstance(a, kinds) or isinstance(sinfo, tuple(k for k in kinds
                                                         if issubclass(k, si.StructInfo))):
        return a
    raise op_error(name, f"{what} (argument {i}) must be "
                         f"{' or '.join(k.__name__ for k in kinds)}, got {type(a).__name__}")


def _dtype_of(name: str, c: rx.Call, i: int) -> str:
    a = _arg(name, c, i, "the dtype", (rx.DataTypeImm,))
    return a.value  # type: ignore[attr-defined]


def _shape_of(name: str, c: rx.Call, i: int) -> si.ShapeStructInfo:
    a = _arg(name, c, i, "the shape", (rx.ShapeExpr, si.ShapeStructInfo))
    sinfo = a.struct_info
    assert isinstance(sinfo, si.ShapeStructInfo)
    return sinfo


def _tensor_from_shape(name: str, c: rx.Call, shape_at: int, dtype_at: int
                       ) -> si.TensorStructInfo:
    shape = _shape_of(name, c, shape_at)
    dtype = _dtype_of(name, c, dtype_at)
    return si.TensorStructInfo(shape.values, dtype, shape.ndim)


def _infer_storage(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    _shape_of(name, c, 0)
    _dtype_of(name, c, 3 if name == "relax.memory.alloc_storage" else 2)
    return si.ObjectStructInfo()


def _infer_tensor_in_storage(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    _arg(name, c, 1, "the offset", (rx.PrimValue, si.PrimStructInfo))
    return _tensor_from_shape(name, c, 2, 3)


def _infer_builtin_alloc(c: rx.Call) -> si.StructInfo:
    return _tensor_from_shape("relax.builtin.alloc_tensor", c, 0, 1)


def _infer_same(c: rx.Call) -> si.StructInfo:
    return tensor_arg(c.op.name, c, 0, "the input")  # type: ignore[attr-defined]


def _infer_void(c: rx.Call) -> si.StructInfo:
    if len(c.args) != 1:
        raise op_error(c.op.name, f"takes one argument, got {len(c.args)}")  # type: ignore
    return _VOID


def _infer_call_tir_dyn(c: rx.Call) -> si.StructInfo:
    name = "relax.vm.call_tir_dyn"
    if len(c.args) != 2 or not isinstance(c.args[1], rx.Tuple):
        raise op_error(name, "takes the kernel and a tuple of its arguments (tensors, then a "
                             "shape of its symbolic values)")
    return _VOID


def memory_alloc_storage(size: Any, virtual_device_index: Any, storage_scope: Any,
                         dtype: Any) -> rx.Call:
    """Allocate `size` bytes of storage (TVM's `relax.op.memory.alloc_storage`)."""
    return _call("relax.memory.alloc_storage", (
        _shape_arg(size), _int_expr(virtual_device_index), as_expr(storage_scope),
        _dtype_expr(dtype)))


def memory_alloc_tensor(storage: Any, offset: Any, shape: Any, dtype: Any,
                        runtime_device_ind: Any = 0) -> rx.Call:
    """A tensor of `shape` and `dtype` placed at byte `offset` of `storage`."""
    return _call("relax.memory.alloc_tensor", (
        as_expr(storage), _int_expr(offset), _shape_arg(shape), _dtype_expr(dtype),
        _int_expr(runtime_device_ind)))


def kill_storage(storage: Any) -> rx.Call:
    """Release a storage (the VM frees it when its last tensor goes)."""
    return _call("relax.memory.kill_storage", (as_expr(storage),))


def kill_tensor(tensor: Any) -> rx.Call:
    """Release a tensor allocated in a storage."""
    return _call("relax.memory.kill_tensor", (as_expr(tensor),))


def view(data: Any, shape: Any = None, dtype: Any = None,
         relative_byte_offset: Any = None) -> rx.Call:
    """The same bytes seen with another shape, dtype or byte offset (no copy)."""
    from .runtime_ops import null_value

    none = rx.Tuple((), si.TupleStructInfo(()))
    return _call("relax.memory.view", (
        as_expr(data), none if shape is None else _shape_arg(shape),
        null_value() if dtype is None else _dtype_expr(dtype),
        none if relative_byte_offset is None else _int_expr(relative_byte_offset)))


def ensure_zero_offset(data: Any) -> rx.Call:
    """`data` itself when it starts at its storage's beginning, else a copy that does."""
    return _call("relax.memory.ensure_zero_offset", (as_expr(data),))


def vm_alloc_storage(shape: Any, runtime_device_index: Any, dtype: Any,
                     storage_scope: Any = "global") -> rx.Call:
    """Allocate a storage of `shape` bytes (TVM's `relax.op.vm.alloc_storage`)."""
    return _call("relax.vm.alloc_storage", (
        _shape_arg(shape), _int_expr(runtime_device_index), _dtype_expr(dtype),
        as_expr(storage_scope)))


def vm_alloc_tensor(storage: Any, offset: Any, shape: Any, dtype: Any,
                    runtime_device_ind: Any = 0) -> rx.Call:
    """A tensor placed at byte `offset` of a storage (TVM's `relax.op.vm.alloc_tensor`)."""
    return _call("relax.vm.alloc_tensor", (
        as_expr(storage), _int_expr(offset), _shape_arg(shape), _dtype_expr(dtype),
        _int_expr(runtime_device_ind)))


def call_tir_dyn(func: Any, args: Any) -> rx.Call:
    """Call a prim_func on tensors it writes in place; the last argument is a shape holding
    the values of its symbolic variables."""
    from .runtime_ops import _args_tuple

    if isinstance(func, str):
        func = rx.ExternFunc(func)
    if isinstance(func, GlobalVar):
        func = rx.GlobalVarRef(func, si.FuncStructInfo(None, _VOID, False))
    return _call("relax.vm.call_tir_dyn", (as_expr(func), _args_tuple(args)))


def vm_kill_object(obj: Any) -> rx.Call:
    """Drop the VM's reference to `obj` (a tensor or any object) so its memory can be freed
    before the function returns (TVM's `relax.op.vm.kill_object`)."""
    return _call("relax.vm.kill_object", (as_expr(obj),))


def builtin_alloc_tensor(shape: Any, dtype: Any, runtime_device_index: Any,
                         storage_scope: Any = "global", ty_args: Any = None,
                         sinfo_args: Any = None) -> rx.Call:
    """A fresh tensor (TVM's `relax.op.builtin.alloc_tensor`); TVM prints its result's
    struct info as `ty_args`, which is inferred here."""
    return _call("relax.builtin.alloc_tensor", (
        _shape_arg(shape), _dtype_expr(dtype), _int_expr(runtime_device_index),
        as_expr(storage_scope)))


_INFER = {
    "relax.memory.alloc_storage": _infer_storage,
    "relax.memory.alloc_tensor": _infer_tensor_in_storage,
    "relax.memory.kill_storage": _infer_void,
    "relax.memory.kill_tensor": _infer_void,
    "relax.memory.view": infer_view,
    "relax.memory.ensure_zero_offset": _infer_same,
    "relax.vm.alloc_storage": _infer_storage,
    "relax.vm.alloc_tensor": _infer_tensor_in_storage,
    "relax.vm.call_tir_dyn": _infer_call_tir_dyn,
    "relax.vm.kill_object": _infer_void,
    "relax.builtin.alloc_tensor": _infer_builtin_alloc,
}
_MAKE = {
    "relax.memory.alloc_storage": memory_alloc_storage,
    "relax.memory.alloc_tensor": memory_alloc_tensor,
    "relax.memory.kill_storage": kill_storage,
    "relax.memory.kill_tensor": kill_tensor,
    "relax.memory.view": view,
    "relax.memory.ensure_zero_offset": ensure_zero_offset,
    "relax.vm.alloc_storage": vm_alloc_storage,
    "relax.vm.alloc_tensor": vm_alloc_tensor,
    "relax.vm.call_tir_dyn": call_tir_dyn,
    "relax.vm.kill_object": vm_kill_object,
    "relax.builtin.alloc_tensor": builtin_alloc_tensor,
}
# the VM builtin each op runs as (vm/storage.py); "call_tir_dyn" is lowered by itself
_BUILTIN = {
    "relax.memory.alloc_storage": "vm.builtin.memory_alloc_storage",
    "relax.memory.alloc_tensor": "vm.builtin.alloc_tensor_in_storage",
    "relax.memory.kill_storage": "vm.builtin.kill_object",
    "relax.memory.kill_tensor": "vm.builtin.kill_object",
    "relax.memory.view": "vm.builtin.memory_view",
    "relax.memory.ensure_zero_offset": "vm.builtin.ensure_zero_offset",
    "relax.vm.alloc_storage": "vm.builtin.vm_alloc_storage",
    "relax.vm.alloc_tensor": "vm.builtin.alloc_tensor_in_storage",
    "relax.vm.call_tir_dyn": "call_tir_dyn",
    "relax.vm.kill_object": "vm.builtin.kill_object",
    "relax.builtin.alloc_tensor": "vm.builtin.alloc_tensor_of_shape",
}
_IMPURE = {"relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.vm.call_tir_dyn",
           "relax.vm.kill_object"}
for _name, _infer in _INFER.items():
    register_op(_name, infer_struct_info=_infer, make=_MAKE[_name], op_pattern=OPAQUE,
                vm_builtin=_BUILTIN[_name], impure=_name in _IMPURE)

__all__ = ["memory_alloc_storage", "memory_alloc_tensor", "kill_storage", "kill_tensor",
           "view", "ensure_zero_offset", "vm_alloc_storage", "vm_alloc_tensor", "call_tir_dyn",
           "vm_kill_object",
           "builtin_alloc_tensor"]
