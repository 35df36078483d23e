"""Pass infrastructure as TVM spells it: `Pass`, `module_pass`, `Sequential`, `PassContext`.

A pass is a pure function IRModule -> IRModule wrapped with a name. `module_pass` decorates a
function `(mod, ctx) -> mod` or a class with `transform_module(self, mod, ctx)`, as TVM's does.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..ir.module import IRModule
from ..ir.well_formed import verify_if_enabled


class PassContext:
    """`with PassContext(opt_level=3):` -- the settings passes read while they run."""

    _stack: list[PassContext] = []

    def __init__(self, opt_level: int = 2, required_pass: Any = (), disabled_pass: Any = (),
                 config: dict[str, Any] | None = None, instruments: Any = ()) -> None:
        self.opt_level = opt_level
        self.required_pass = list(required_pass)
        self.disabled_pass = list(disabled_pass)
        self.config = dict(config or {})
        self.instruments = list(instruments)

    @staticmethod
    def current() -> PassContext:
        return PassContext._stack[-1] if PassContext._stack else PassContext()

    def __enter__(self) -> PassContext:
        PassContext._stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        PassContext._stack.pop()


class Pass:
    """A named module transformation; call it on an IRModule to get a new one."""

    def __init__(self, fn: Callable[[IRModule, PassContext], IRModule], name: str,
                 opt_level: int = 0) -> None:
        self._fn = fn
        self.name = name
        self.opt_level = opt_level

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"pass {self.name} expects an IRModule, got {type(mod).__name__}")
        ctx = PassContext.current()
        if self.name in ctx.disabled_pass:
            return mod
        result = self._fn(mod, ctx)
        if not isinstance(result, IRModule):
            raise TypeError(f"pass {self.name} returned {type(result).__name__}, not an IRModule")
        verify_if_enabled(result, f"pass {self.name}")
        return result

    def __repr__(self) -> str:
        return f"Pass({self.name})"


class Sequential(Pass):
    """Runs passes in order (those above the context's opt_level are skipped, as in TVM)."""

    def __init__(self, passes: list[Pass] | None = None, opt_level: int = 0,
                 name: str = "sequential", required: Any = ()) -> None:
        self.passes = list(passes or [])
        super().__init__(self._run, name, opt_level)

    def _run(self, mod: IRModule, ctx: PassContext) -> IRModule:
        for p in self.passes:
            if p.opt_level <= ctx.opt_level or p.name in ctx.required_pass:
                mod = p(mod)
        return mod


def module_pass(pass_func: Any = None, opt_level: int = 0, name: str | None = None,
                required: Any = (), traceable: bool = False) -> Any:
    """Make a Pass from `f(mod, ctx)` or from a class with `transform_module(mod, ctx)`."""

    def wrap(target: Any) -> Any:
        if isinstance(target, type):
            @functools.wraps(target, updated=())
            def make(*args: Any, **kwargs: Any) -> Pass:
                inst = target(*args, **kwargs)
                return Pass(inst.transform_module, name or target.__name__, opt_level)

            return make
        return Pass(target, name or target.__name__, opt_level)

    return wrap(pass_func) if pass_func is not None else wrap
