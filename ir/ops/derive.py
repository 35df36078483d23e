"""Struct-info rules named by `R.Callable(derive_func=...)`: a call of an extern function
whose struct info says `derive_func="tvm.relax.type.infer_view_ty"` gets its struct info from
that rule (TVM registers the same names as global functions)."""

from __future__ import annotations

from typing import Callable

from .. import expr as rx
from .. import struct_info as si
from .memory_view import infer_view

# each rule reads the call's arguments as the operator of the same meaning does
_RULES: dict[str, Callable[[rx.Call], si.StructInfo]] = {
    "tvm.relax.type.infer_view_ty": infer_view,  # (data, shape, dtype, relative_byte_offset)
}


def derive_struct_info(name: str, call: rx.Call) -> si.StructInfo:
    rule = _RULES.get(name)
    if rule is None:
        raise ValueError(f"unknown derive_func {name!r}; known: {', '.join(sorted(_RULES))}")
    return rule(call)
