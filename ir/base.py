"""`tvm.ir.base`: structural equality and hashing, and `Span` (TVM's module of that name)."""

from ..tir.expr import Span  # noqa: F401
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
