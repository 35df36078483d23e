"""`tvm.script.ir_builder.base`: the IRBuilder and its frames.

An `IRBuilder` collects what its frames build: entering a frame pushes it, leaving pops it and
lets it hand its result to the frame below (or to the builder, when it is the outermost).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


class IRBuilderFrame:
    """A `with` block of the builder; subclasses say what leaving it produces."""

    def __enter__(self) -> IRBuilderFrame:
        IRBuilder.current().frames.append(self)
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        builder = IRBuilder.current()
        builder.frames.pop()
        if kind is None:
            self.finish(builder)

    def finish(self, builder: IRBuilder) -> None:
        """Called on a clean exit."""


class NoActiveBuilder(RuntimeError, ValueError):
    """A builder call outside every `with IRBuilder()` (a ValueError, as TVM raises)."""


class IRBuilder:
    """`with IRBuilder() as ib: ...` then `ib.get()`: the outermost frame's result."""

    _active: list[IRBuilder] = []

    def __init__(self) -> None:
        self.frames: list[IRBuilderFrame] = []
        self.result: Any = None
        self.span: Any = None  # what statements built now are located at (with_source_span)

    def __enter__(self) -> IRBuilder:
        IRBuilder._active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        IRBuilder._active.pop()

    @contextlib.contextmanager
    def with_source_span(self, span: Any) -> Iterator[None]:
        """Statements emitted inside take `span` (TVM's builder span scope)."""
        saved, self.span = self.span, span
        try:
            yield
        finally:
            self.span = saved

    @staticmethod
    def current() -> IRBuilder:
        if not IRBuilder._active:
            raise NoActiveBuilder("no IRBuilder is active: use `with IRBuilder() as ib:` first")
        return IRBuilder._active[-1]

    @staticmethod
    def is_in_scope() -> bool:
        return bool(IRBuilder._active)

    def get(self) -> Any:
        if self.result is None:
            raise RuntimeError("the IRBuilder has built nothing yet (the outermost frame "
                               "must be left first)")
        return self.result

    @staticmethod
    def name(s: str, v: Any) -> Any:
        """Give a built variable the name `s` (TVM's `IRBuilder.name`)."""
        if hasattr(v, "name_hint"):
            object.__setattr__(v, "name_hint", s)
        elif type(v).__name__ in ("Var", "Buffer") and hasattr(v, "name"):  # TIR's nodes
            object.__setattr__(v, "name", s)
        return v

    @staticmethod
    def name_many(names: list[str], vs: list[Any]) -> list[Any]:
        return [IRBuilder.name(s, v) for s, v in zip(names, vs)]


__all__ = ["IRBuilder", "IRBuilderFrame"]
