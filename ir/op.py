"""The operator registry: one entry per op name, holding what passes need to know of it.

Knowledge about an op (struct-info inference, legalization, printing) is attached by name
with `register_op(...)` / `set_op_attr(...)`, never written as `isinstance` chains in passes.
"""

from __future__ import annotations

from typing import Any

from .expr import Op

_OP_ATTRS: dict[str, dict[str, Any]] = {}


def register_op(name: str, **attrs: Any) -> Op:
    _OP_ATTRS.setdefault(name, {}).update(attrs)
    return Op(name)


def set_op_attr(name: str, key: str, value: Any) -> None:
    if name not in _OP_ATTRS:
        raise KeyError(f"operator {name!r} is not registered")
    _OP_ATTRS[name][key] = value


def get_op(name: str) -> Op:
    if name not in _OP_ATTRS:
        raise KeyError(f"operator {name!r} is not registered")
    return Op(name)


def op_attr(name: str, key: str, default: Any = None) -> Any:
    return _OP_ATTRS.get(name, {}).get(key, default)


def list_ops() -> list[str]:
    return sorted(_OP_ATTRS)


# Destination-passing calls: args are (callee, Tuple(inputs)[, ShapeExpr(tir_vars)]) and
# sinfo_args holds the output struct info.
CALL_TIR = register_op("relax.call_tir")
CALL_DPS_PACKED = register_op("relax.call_dps_packed")
# A packed call the compiler may treat as pure: args are (ExternFunc, *inputs).
CALL_PURE_PACKED = register_op("relax.call_pure_packed")
