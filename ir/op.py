"""The operator registry: one entry per op name, holding what passes need to know of it.

Knowledge about an op (struct-info inference, legalization, printing) is attached by name
with `register_op(...)` / `set_op_attr(...)`, never written as `isinstance` chains in passes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from .expr import Op

_OP_ATTRS: dict[str, dict[str, Any]] = {}
# (op, key) pairs a user reset (TVM's `Op.reset_attr`): a built-in default no longer applies
_RESET: set[tuple[str, str]] = set()
# key -> f(op name): the value `Op.get_attr(key)` gives when no attribute was set, e.g. the
# built-in legalization as a TVM-style FLegalize (registered by the layer that owns it)
_ATTR_DEFAULTS: dict[str, Callable[[str], Any]] = {}


def register_op(name: str, **attrs: Any) -> Op:
    _OP_ATTRS.setdefault(name, {}).update(attrs)
    _RESET.difference_update((name, k) for k in attrs)
    return Op(name)


def set_op_attr(name: str, key: str, value: Any) -> None:
    if name not in _OP_ATTRS:
        raise KeyError(f"operator {name!r} is not registered")
    _OP_ATTRS[name][key] = value
    _RESET.discard((name, key))


def reset_op_attr(name: str, key: str) -> None:
    _OP_ATTRS.get(name, {}).pop(key, None)
    _RESET.add((name, key))


def was_reset(name: str, key: str) -> bool:
    """Whether the attribute was reset and not set again since (its default is off too)."""
    return (name, key) in _RESET


def unmark_reset(name: str, key: str) -> None:
    _RESET.discard((name, key))


def register_attr_default(key: str, default: Callable[[str], Any]) -> None:
    _ATTR_DEFAULTS[key] = default


def op_attr_or_default(name: str, key: str) -> Any:
    """The attribute, else (unless it was reset) the default its key has, else None."""
    value = op_attr(name, key)
    if value is None and key in _ATTR_DEFAULTS and not was_reset(name, key):
        value = _ATTR_DEFAULTS[key](name)
    return value


def get_op(name: str) -> Op:
    if name not in _OP_ATTRS:
        raise KeyError(f"operator {name!r} is not registered")
    return Op(name)


def op_attr(name: str, key: str, default: Any = None) -> Any:
    return _OP_ATTRS.get(name, {}).get(key, default)


def with_inferred_struct_info(call: Any) -> Any:
    """`call` (a Call of a registered op) with the struct info its op's rule infers; unchanged
    when the op has no rule."""
    infer = op_attr(call.op.name, "infer_struct_info")
    return call if infer is None else replace(call, struct_info=infer(call))


def list_ops() -> list[str]:
    return sorted(_OP_ATTRS)


# Destination-passing calls: args are (callee, Tuple(inputs)[, ShapeExpr(tir_vars)]) and
# sinfo_args holds the output struct info.
CALL_TIR = register_op("relax.call_tir")
CALL_DPS_PACKED = register_op("relax.call_dps_packed")
# call_tir whose outputs alias inputs (attr `inplace_indices`; -1: a fresh output)
CALL_TIR_INPLACE = register_op("relax.call_tir_inplace")
# A packed call the compiler may treat as pure: args are (ExternFunc, *inputs).
CALL_PURE_PACKED = register_op("relax.call_pure_packed")
