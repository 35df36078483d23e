"""`@T.jit`: a prim_func parsed later, once per specialization (TVM 0.27's compile-time
parameters).

Keyword-only parameters annotated `T.constexpr` are not parameters of the result: each
`.specialize(N=1024)` parses the function with `N` bound to the given Python value (loop
bounds, buffer shapes). A parameter annotated `T.Optional(T.handle)` stays a parameter unless
the specialization passes `name=None`; then it is dropped and the name means `None` in the
body, so `if name is not None:` picks a branch while parsing.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class _Constexpr:
    """`N: T.constexpr`: a compile-time parameter of a `@T.jit` function."""

    def __repr__(self) -> str:
        return "T.constexpr"


constexpr = _Constexpr()


@dataclass(frozen=True)
class Optional:  # noqa: D101 (TVM's name)
    """`x: T.Optional(T.handle)`: a `@T.jit` parameter a specialization may leave out."""

    annotation: Any


class JitFunction:
    """What `@T.jit` gives: `.specialize(**values)` returns a `PrimFunc`."""

    def __init__(self, func: Callable[..., Any], opts: dict[str, Any], env: dict[str, Any]):
        self.func = func
        self.opts = opts
        self.env = env
        self.__name__ = func.__name__

    def specialize(self, **values: Any) -> Any:
        from .parser.entry import parse_function
        from .parser.source import function_node

        node, src = function_node(self.func)  # type: ignore[arg-type]
        node = copy.deepcopy(node)
        a = node.args
        known = {x.arg for x in a.kwonlyargs} | {x.arg for x in a.args}
        unknown = sorted(set(values) - known)
        if unknown:
            raise TypeError(f"{self.__name__}.specialize() got unknown parameters {unknown}")
        missing = [x.arg for x in a.kwonlyargs if x.arg not in values]
        if missing:
            raise TypeError(f"{self.__name__}.specialize() needs values for {missing}")
        dropped = {name for name, v in values.items() if v is None
                   and name in {x.arg for x in a.args}}
        a.args = [x for x in a.args if x.arg not in dropped]
        a.kwonlyargs, a.kw_defaults = [], []
        node.decorator_list = []
        env = {**self.env, **values}
        return parse_function("tir", node, src, env, None, self.opts)


def jit(func: Callable[..., Any] | None = None, *, private: bool = False,
        **_options: Any) -> Any:
    """`@T.jit` / `@T.jit(private=True)`: see the module docstring."""
    frame = sys._getframe(1)
    env = {**frame.f_globals, **frame.f_locals}
    if func is None:
        return lambda f: JitFunction(f, {"private": private}, env)
    return JitFunction(func, {"private": private}, env)


def unwrap_optional(annotation: Any) -> Any:
    """The annotation inside `T.Optional(...)` (other annotations as they are)."""
    return annotation.annotation if isinstance(annotation, Optional) else annotation


__all__ = ["jit", "constexpr", "Optional"]
