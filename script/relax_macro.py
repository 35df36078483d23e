"""`@R.macro`: a Python function whose body is Relax TVMScript, pasted into the `@R.function`
that calls it. Its bindings join the caller's current block; its `return` value (if any) is the
value of the call. Names resolve as in `@T.macro` (script/tir_macro.py): hygienic macros see
their parameters, closure and module globals; `hygienic=False` ones the caller's names too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .parser.core import current
from .parser.relax_parser import function_frame
from .tir_macro import Macro


class RelaxMacro(Macro):
    """A function decorated with `@R.macro`; call it inside an `@R.function`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        p = current()
        frame = function_frame(p) if p is not None else None
        if frame is None:
            raise RuntimeError(f"R.macro {self.__name__!r} can only be called inside an "
                               "@R.function")
        node, source = self._definition()
        values = self._bind(node, args, kwargs)
        env = self._env() if self.hygienic else {**self._env(), **p.env}
        saved_ret, saved = frame.ret, (p.scopes, p.env, p.source)
        saved_outputs, frame.outputs = frame.outputs, None  # NOTE: its return is no output
        frame.ret = None
        p.env, p.source = env, source
        if self.hygienic:
            p.scopes = [{}]
        try:
            with p.scope():
                for name, value in values.items():
                    p.bind(name, value)
                p.visit_body(node.body)
            return frame.ret
        finally:
            frame.ret, frame.outputs = saved_ret, saved_outputs
            p.scopes, p.env, p.source = saved


def macro(*args: Any, hygienic: bool = True) -> Any:
    """`@R.macro` / `@R.macro(hygienic=False)`."""
    if not args:
        return lambda f: RelaxMacro(f, hygienic)
    func: Callable[..., Any] = args[0]
    if not callable(func):
        raise ValueError("R.macro takes its options as keywords: @R.macro(hygienic=True)")
    return RelaxMacro(func, hygienic)


__all__ = ["macro", "RelaxMacro"]
