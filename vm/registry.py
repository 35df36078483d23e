"""The global function registry: `tvm.register_func` / `tvm.get_global_func`.

Registered Python functions are what `R.call_packed` / `R.call_dps_packed` call by name; they
receive NDArrays (which support `__dlpack__`) and Python ints/tuples.
"""

from __future__ import annotations

from typing import Any, Callable

_REGISTRY: dict[str, Callable[..., Any]] = {}
# the VM's own names, registered when vm/vm.py is imported
_VM_PREFIXES = ("vm.builtin.", "relax.run.", "vm.", "runtime.")


def register_func(name: str | Callable[..., Any], f: Callable[..., Any] | None = None,
                  override: bool = False) -> Any:
    """Register `f` under `name`; without `f`, return a decorator (TVM's two forms).

    `@register_func` with no name uses the function's `__name__`. Registering a taken name
    raises ValueError unless `override=True`.
    """
    if callable(name) and f is None:  # bare @register_func
        return register_func(name.__name__, name, override)
    if not isinstance(name, str):
        raise TypeError(f"register_func: name must be a str, got {type(name).__name__}")

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise TypeError(f"register_func({name!r}): {func!r} is not callable")
        if name in _REGISTRY and not override:
            raise ValueError(f"global function {name!r} is already registered; "
                             "pass override=True to replace it")
        _REGISTRY[name] = func
        return func

    return register if f is None else register(f)


def get_global_func(name: str, allow_missing: bool = False) -> Callable[..., Any] | None:
    """The function registered under `name`; None if missing and `allow_missing`."""
    func = _REGISTRY.get(name)
    if func is None and name.startswith(_VM_PREFIXES):
        from . import vm  # noqa: F401 (importing the VM registers its builtins)

        func = _REGISTRY.get(name)
    if func is None and not allow_missing:
        raise ValueError(f"global function {name!r} is not registered "
                         "(register it with tvm.register_func)")
    return func


def list_global_func_names() -> list[str]:
    return sorted(_REGISTRY)


def remove_global_func(name: str) -> None:
    if _REGISTRY.pop(name, None) is None:
        raise ValueError(f"global function {name!r} is not registered")
