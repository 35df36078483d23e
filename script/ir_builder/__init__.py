"""`tvm.script.ir_builder`: build TIR from Python with frames used as context managers.

`with IRBuilder() as ib:` opens a builder; inside it each `with T.<frame>(...)` of
`ir_builder.tirx` collects the statements emitted in its body and, on exit, emits the statement
it builds into the enclosing frame. `ib.get()` is what the outermost frames built: a PrimFunc,
one statement, or a `SeqStmt` of several.
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts


class IRBuilder:
    """The builder whose frames are now open (one per `with IRBuilder()` block)."""

    _active: list[IRBuilder] = []

    def __init__(self) -> None:
        self.bodies: list[list[Any]] = [[]]  # one statement list per open frame, outermost first
        self.frames: list[Any] = []  # the open frames, outermost first
        self.result: Any = None

    def __enter__(self) -> IRBuilder:
        IRBuilder._active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        IRBuilder._active.remove(self)

    @staticmethod
    def current() -> IRBuilder:
        if not IRBuilder._active:
            raise RuntimeError("no IRBuilder is open: use `with IRBuilder() as ib:` first")
        return IRBuilder._active[-1]

    @staticmethod
    def is_in_scope() -> bool:
        return bool(IRBuilder._active)

    def emit(self, stmt: Any) -> None:
        self.bodies[-1].append(stmt)

    def get(self) -> Any:
        """What the builder built: a PrimFunc, or the statement(s) of its outermost frames."""
        if self.result is not None:
            return self.result
        top = self.bodies[0]
        if not top:
            raise ValueError("the IRBuilder has built nothing yet")
        return top[0] if len(top) == 1 else ts.seq(top)

    @staticmethod
    def name(s: str, v: Any) -> Any:
        """Give the variable (or buffer) `v` the name `s`; returns `v`."""
        if isinstance(v, (tx.Var, ts.Buffer)):
            object.__setattr__(v, "name", s)  # NOTE: the node is fresh from this builder
        else:
            raise TypeError(f"IRBuilder.name names a Var or Buffer, not {type(v).__name__}")
        return v

    @staticmethod
    def name_many(s: list[str], vs: list[Any]) -> list[Any]:
        if len(s) != len(vs):
            raise ValueError(f"name_many: {len(s)} names for {len(vs)} values")
        return [IRBuilder.name(n, v) for n, v in zip(s, vs)]


__all__ = ["IRBuilder"]
