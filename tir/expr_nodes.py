"""TVM's per-operator expression classes (`tir.Add`, `tir.EQ`, ...) over tvmlite's `BinOp`,
and the vector and reduction nodes (`Ramp`, `Broadcast`, `Shuffle`, `CommReducer`, `Reduce`).

tvmlite keeps one `BinOp` class with an operator field; TVM has a class per operator. The
classes here are views of that one node: `Add(a, b)` builds `BinOp(ADD, a, b)` and
`isinstance(e, Add)` is true exactly for a `BinOp` whose operator is ADD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dtype import element
from .expr import BinaryOp, BinOp, PrimExpr, Span, Var, binop, const


class _BinOpView(type):
    """Metaclass of the per-operator classes: calling one builds a `BinOp`."""

    op: BinaryOp

    def __call__(cls, a: Any, b: Any, span: Span | None = None) -> PrimExpr:  # type: ignore
        return binop(cls.op, a, b, span)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, BinOp) and obj.op is cls.op


def _view(name: str, op: BinaryOp) -> type:
    return _BinOpView(name, (), {"op": op, "__doc__": f"`{op.value}` as TVM's tir.{name}."})


Add = _view("Add", BinaryOp.ADD)
Sub = _view("Sub", BinaryOp.SUB)
Mul = _view("Mul", BinaryOp.MUL)
Div = _view("Div", BinaryOp.DIV)
Mod = _view("Mod", BinaryOp.MOD)
FloorDiv = _view("FloorDiv", BinaryOp.FLOORDIV)
FloorMod = _view("FloorMod", BinaryOp.FLOORMOD)
Min = _view("Min", BinaryOp.MIN)
Max = _view("Max", BinaryOp.MAX)
EQ = _view("EQ", BinaryOp.EQ)
NE = _view("NE", BinaryOp.NE)
LT = _view("LT", BinaryOp.LT)
LE = _view("LE", BinaryOp.LE)
GT = _view("GT", BinaryOp.GT)
GE = _view("GE", BinaryOp.GE)
And = _view("And", BinaryOp.AND)
Or = _view("Or", BinaryOp.OR)


def _vector(dtype: str, n: int) -> str:
    return dtype if n == 1 else f"{element(dtype)}x{n}"


@dataclass(frozen=True, slots=True)
class Ramp(PrimExpr):
    """`[base, base + stride, ..., base + (lanes - 1) * stride]` as one vector value."""

    base: PrimExpr
    stride: PrimExpr
    lanes: int
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return _vector(self.base.dtype, self.lanes)


@dataclass(frozen=True, slots=True)
class Broadcast(PrimExpr):
    """A scalar repeated over `lanes` vector lanes."""

    value: PrimExpr
    lanes: int
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return _vector(self.value.dtype, self.lanes)


@dataclass(frozen=True, slots=True)
class Shuffle(PrimExpr):
    """Lanes picked from the concatenation of `vectors` by `indices`."""

    vectors: tuple[PrimExpr, ...]
    indices: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return _vector(self.vectors[0].dtype, len(self.indices))


@dataclass(frozen=True, slots=True)
class CommReducer:
    """A commutative reduction: `result` combines `lhs` and `rhs`, starting at `identity`."""

    lhs: tuple[Var, ...]
    rhs: tuple[Var, ...]
    result: tuple[PrimExpr, ...]
    identity_element: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __call__(self, *values: Any) -> tuple[PrimExpr, ...]:
        """The combiner applied to values (lhs..., rhs...)."""
        from .functor import Substituter

        vmap = dict(zip(self.lhs + self.rhs, (const(v) for v in values)))
        return tuple(Substituter(vmap).visit(r) for r in self.result)


@dataclass(frozen=True, slots=True)
class Reduce(PrimExpr):
    """`combiner` folded over `source` while the reduction `axis` iterators run."""

    combiner: CommReducer
    source: tuple[PrimExpr, ...]
    axis: tuple[Any, ...]  # tir.IterVar
    condition: PrimExpr
    value_index: int
    init: tuple[PrimExpr, ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.source[self.value_index].dtype
