"""`tvm.ir.base`: structural equality and hashing, and `Span` (TVM's module of that name)."""

from typing import Any

from ..tir import expr as _tx
from .structural import assert_structural_equal, structural_equal, structural_hash  # noqa: F401


class SourceName:
    """`tvm.ir.SourceName`: the name of a source file, as a Span's `source_name` holds it."""

    def __init__(self, name: str) -> None:
        self.name = str(name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"SourceName({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceName) and other.name == self.name or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class _SpanMeta(type):
    """Builds tvmlite's spans from TVM's positional order; any span is an instance."""

    def __call__(cls, source_name: Any, line: int, end_line: int, column: int,
                 end_column: int) -> _tx.Span:
        return _tx.Span(source_name, line, column, end_line, end_column)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, _tx.Span)


class Span(metaclass=_SpanMeta):
    """`tvm.ir.Span(source_name, line, end_line, column, end_column)`, TVM's argument order
    (tvmlite's own `tir.expr.Span` orders them line, column, end_line, end_column)."""
