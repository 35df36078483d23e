"""`@T.macro` and `@T.inline`: Python functions whose bodies are TVMScript, pasted into the
prim_func that calls them.

A call parses the function's body in place, with its parameters bound to the call's arguments
(`*args` and `**kwargs` included). Names the body does not bind resolve as Python would:
through the function's closure and module globals, never through the caller's variables
(so a loop variable `x` of the caller does not capture the macro's `x`). A macro defined inside
a prim_func body instead sees the enclosing body's names as they are when it is called (late
binding), as Python's own nested functions do.
"""

from __future__ import annotations

import ast
import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

from ..tir import stmt as ts
from .parser.core import Parser, Wrap, current


class Macro:
    """A function decorated with `@T.macro` / `@T.inline`; call it inside a prim_func."""

    def __init__(self, func: Callable[..., Any] | None, hygienic: bool = True,
                 node: ast.FunctionDef | None = None, source: Any = None) -> None:
        self.func = func
        self.hygienic = hygienic
        self.node = node  # set for a macro defined inside a prim_func body
        self.source = source
        self.__name__ = getattr(func, "__name__", node.name if node else "macro")
        self.__doc__ = getattr(func, "__doc__", None)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)  # a method of a class

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        p = current()
        if p is None:
            raise RuntimeError(f"macro {self.__name__!r} can only be called inside a "
                               "@T.prim_func")
        node, source = self._definition()
        values = self._bind(node, args, kwargs)
        if self.node is not None:  # defined in the body: the caller's names, late bound
            return _expand(p, node, source, values, None)
        if not self.hygienic:  # the caller's names first, then the definition's
            return _expand(p, node, source, values, {**self._env(), **p.env}, keep_scopes=True)
        return _expand(p, node, source, values, self._env())

    def _definition(self) -> tuple[ast.FunctionDef, Any]:
        if self.node is not None:
            return self.node, self.source
        from .parser.source import function_node

        return function_node(self.func)  # type: ignore[arg-type]

    def _bind(self, node: ast.FunctionDef, args: tuple, kwargs: dict) -> dict[str, Any]:
        if self.func is not None:
            sig = inspect.signature(self.func)
        else:  # defined inside a prim_func: the signature is in the AST
            sig = _signature_of(node)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    def _env(self) -> dict[str, Any]:
        """The function's globals and closure, read now (Python's late binding)."""
        func: types.FunctionType = self.func  # type: ignore[assignment]
        env = dict(func.__globals__)
        for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
            try:
                env[name] = cell.cell_contents
            except ValueError:  # NOTE: a closure variable not assigned yet
                pass
        return env


def _signature_of(node: ast.FunctionDef) -> inspect.Signature:
    a = node.args
    params = [inspect.Parameter(x.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for x in a.args]
    if a.vararg:
        params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(x.arg, inspect.Parameter.KEYWORD_ONLY) for x in a.kwonlyargs]
    if a.kwarg:
        params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def _expand(p: Parser, node: ast.FunctionDef, source: Any, values: dict[str, Any],
            env: dict[str, Any] | None, keep_scopes: bool = False) -> Any:
    """The macro body parsed by the caller's parser: hygienic (`env` given: only the
    parameters and `env` are visible) or late-bound (the caller's scopes stay visible)."""
    saved = p.scopes, p.env, p.source
    if env is not None:
        p.env = env
        if not keep_scopes:
            p.scopes = [{}]
    p.source = source
    p.macro_depth = getattr(p, "macro_depth", 0) + 1  # type: ignore[attr-defined]
    try:
        with p.scope():
            for name, value in values.items():
                p.bind(name, value)
            body = p.visit_body(node.body)
    finally:
        p.scopes, p.env, p.source = saved
        p.macro_depth -= 1  # type: ignore[attr-defined]
    stmts = [s for s in body if not isinstance(s, Wrap)]
    return ts.seq(stmts) if stmts else None


def macro(func: Callable[..., Any] | None = None, *, hygienic: bool = True) -> Any:
    """`@T.macro` / `@T.macro(hygienic=False)`: see the module docstring."""
    if func is None:
        return lambda f: Macro(f, hygienic)
    if not callable(func):
        raise ValueError("T.macro takes its options as keywords: @T.macro(hygienic=True)")
    return Macro(func, hygienic)


def inline(func: Callable[..., Any] | None = None) -> Any:
    """`@T.inline` / `@T.inline()`: a macro with Python's scoping (the same as `T.macro`)."""
    if func is None:
        return lambda f: Macro(f)
    if not callable(func):
        raise ValueError("T.inline takes no positional options")
    return Macro(func)


def is_macro_decorator(value: Any) -> bool:
    return value is macro or value is inline or \
        (isinstance(value, types.FunctionType) and value.__qualname__.startswith(
            ("macro.", "inline.")))


__all__ = ["macro", "inline"]
