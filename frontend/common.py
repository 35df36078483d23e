"""Helpers shared by the frontends (`relax.frontend.detach_params`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir.expr import Function


def detach_params(mod: Any) -> tuple[Any, dict[str, list[Any]]]:
    """Take the `params` attribute off every function that has one.

    Returns the module without those attributes and `{function name: [NDArray, ...]}`: the
    values to pass after the inputs (`vm["main"](x, *params["main"])`), in parameter order.
    """
    funcs: dict[Any, Any] = {}
    params: dict[str, list[Any]] = {}
    for gv, func in mod.items():
        if isinstance(func, Function) and "params" in func.attrs:
            params[gv.name_hint] = list(func.attrs["params"])
            func = replace(func, attrs=tuple((k, v) for k, v in func.attrs if k != "params"))
        funcs[gv] = func
    return replace(mod, functions=funcs), params
