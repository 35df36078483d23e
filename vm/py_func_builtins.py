"""The registry of Python functions that `R.call_py_func` calls by name, under TVM's global
names: `vm.builtin.register_py_func(name, f)`, `vm.builtin.get_py_func(name)`,
`vm.builtin.clear_py_func_registry()` and `vm.builtin.call_py_func(name, args)`, which the VM
runs for `relax.call_py_func` (the arguments come as one tuple, as TVM passes them)."""

from __future__ import annotations

import threading
from typing import Any, Callable

from .registry import register_func

_registry: dict[str, Callable[..., Any]] = {}
_lock = threading.Lock()


def register_py_func(name: str, func: Callable[..., Any]) -> None:
    with _lock:
        _registry[str(name)] = func


def get_py_func(name: str) -> Callable[..., Any]:
    func = _registry.get(str(name))
    if func is None:
        raise ValueError(f"Python function '{name}' not found in registry (register it with "
                         f"vm.builtin.register_py_func or as an @I.pyfunc of the module)")
    return func


def clear_py_func_registry() -> None:
    with _lock:
        _registry.clear()


def call_py_func(name: str, args: Any) -> Any:
    return get_py_func(name)(*args)


register_func("vm.builtin.register_py_func", register_py_func, override=True)
register_func("vm.builtin.get_py_func", get_py_func, override=True)
register_func("vm.builtin.clear_py_func_registry", clear_py_func_registry, override=True)
register_func("vm.builtin.call_py_func", call_py_func, override=True)
