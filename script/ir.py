"""The `I` namespace of TVMScript: `from tvmlite.script import ir as I`."""

from __future__ import annotations

import sys
from typing import Any

from ..ir.global_info import DummyGlobalInfo, VDevice
from ..ir.module import GlobalVar
from .parser.core import check_attrs, current
from .parser.entry import ir_module


def module_attrs(attrs: dict[str, Any]) -> None:
    """`I.module_attrs({...})` in an ir_module class body."""
    module = _module()
    if module is not None:
        module.attrs.update(check_attrs(attrs, "I.module_attrs"))


def module_global_infos(infos: dict[str, Any]) -> None:
    """`I.module_global_infos({...})` in an ir_module class body."""
    module = _module()
    if module is not None:
        module.global_infos.update(check_attrs(infos, "I.module_global_infos"))


def vdevice(target: Any = None, vdevice_id: int = 0, memory_scope: str = "global") -> VDevice:
    """`I.vdevice("llvm", 0)`: a virtual device, for `I.module_global_infos({"vdevice": [...]})`."""
    return VDevice(target, vdevice_id, memory_scope)


def dummy_global_info() -> DummyGlobalInfo:
    """`I.dummy_global_info()`: a global info that carries nothing."""
    return DummyGlobalInfo()


def meta_var(value: Any) -> Any:
    """`I.meta_var(x)`: a Python value bound to names as is (`C = I.meta_var(T.int64(16))`
    makes `C` the constant 16 in the shapes after it, not a symbolic dim)."""
    from .tir_stmts import meta_var as _meta_var

    return _meta_var(value)


def pyfunc(func: Any) -> Any:
    """`@I.pyfunc`: a plain Python method of an `@I.ir_module` class deriving from
    `relax.BasePyModule`; it joins the module by name and can be called from its Relax code
    with `R.call_py_func("name", ...)`."""
    func.dispatch_token = "pyfunc"
    return func


pyfunc.__tvmscript_kind__ = "pyfunc"  # type: ignore[attr-defined]
pyfunc.dispatch_token = "pyfunc"  # type: ignore[attr-defined]


def _module() -> Any:
    p = current()
    if p is None and _called_from_class_body():
        return None  # Python running the class body first; @I.ir_module parses the call again
    if p is None or p.module is None:
        raise ValueError("I.module_attrs / I.module_global_infos belong in an ir_module class")
    return p.module


__all__ = ["GlobalVar", "dummy_global_info", "ir_module", "module_attrs", "module_global_infos",
           "vdevice", "meta_var", "pyfunc"]


def _called_from_class_body() -> bool:
    """Whether the I.module_* call sits directly in a class body (its frame defines
    `__qualname__` and `__module__`), two frames above this helper's caller."""
    frame = sys._getframe(3)
    return "__qualname__" in frame.f_locals and "__module__" in frame.f_locals
