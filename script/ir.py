"""The `I` namespace of TVMScript: `from tvmlite.script import ir as I`."""

from __future__ import annotations

from typing import Any

from ..ir.module import GlobalVar
from .parser.core import check_attrs, current
from .parser.entry import ir_module


def module_attrs(attrs: dict[str, Any]) -> None:
    """`I.module_attrs({...})` in an ir_module class body."""
    _module().attrs.update(check_attrs(attrs, "I.module_attrs"))


def module_global_infos(infos: dict[str, Any]) -> None:
    """`I.module_global_infos({...})` in an ir_module class body."""
    _module().global_infos.update(check_attrs(infos, "I.module_global_infos"))


def _module() -> Any:
    p = current()
    if p is None or p.module is None:
        raise ValueError("I.module_attrs / I.module_global_infos belong in an ir_module class")
    return p.module


__all__ = ["GlobalVar", "ir_module", "module_attrs", "module_global_infos"]
