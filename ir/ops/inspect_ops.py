"""`relax.inspect.*`: a tensor's DLPack fields read at run time (TVM 0.27's operators of
that name): dtype code / bits / lanes, ndim, shape[i], stride[i] (in elements), byte and
element offsets. Each lowers to a VM builtin (vm/inspect_builtins.py)."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from .base import call, tensor_arg

# name -> (the dtype TVM gives the result, takes an axis argument)
_FIELDS = {
    "tensor_dtype_code": ("uint8", False), "tensor_dtype_bits": ("uint8", False),
    "tensor_dtype_lanes": ("uint16", False), "tensor_ndim": ("int32", False),
    "tensor_shape_i": ("int64", True), "tensor_stride_i": ("int64", True),
    "tensor_byte_offset": ("uint64", False), "tensor_elem_offset": ("uint64", False),
}


def _infer(field: str, dtype: str, with_axis: bool) -> Any:
    name = f"relax.inspect.{field}"

    def infer(c: rx.Call) -> si.StructInfo:
        tensor_arg(name, c, 0, "the tensor")
        if len(c.args) != (2 if with_axis else 1):
            from .base import op_error

            raise op_error(name, f"takes {'a tensor and an axis' if with_axis else 'a tensor'}")
        return si.PrimStructInfo(dtype)
    return infer


def _make(field: str) -> Any:
    return lambda *args: call(f"relax.inspect.{field}", args)


for _field, (_dtype, _axis) in _FIELDS.items():
    register_op(f"relax.inspect.{_field}", infer_struct_info=_infer(_field, _dtype, _axis),
                make=_make(_field), vm_builtin=f"vm.builtin.inspect.{_field}")
