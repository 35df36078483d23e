"""Scalar expressions of the loop IR (TIR).

Nodes are frozen, slotted dataclasses that compare by value, except `Var`, which compares by
identity (two variables named `i` are two variables). Spans never take part in equality.
Python operators on expressions build IR (`i * 4 + j`), so `te`-style code and the parser share
one way of making arithmetic; `==` is *not* overloaded (value equality), use `eq(a, b)`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from .dtype import is_float, is_int, is_uint, promote


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node came from in the user's source (1-based line, 0-based column)."""

    source_name: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0


def node_script(self: Any, **options: Any) -> str:
    """The node as TVMScript, as TVM 0.27's `.script()` prints one node: the variables and
    buffers it uses freely are defined first. TVM's printer options change nothing here."""
    from ..script.printer.tir_node_printer import print_node  # the printer lives above tir

    return print_node(self)


class PrimExpr:
    """Base of all scalar expressions; gives them Python arithmetic that builds IR."""

    __slots__ = ()
    dtype: str
    script = node_script

    def same_as(self, other: object) -> bool:
        """TVM's identity test (`==` builds a comparison expression instead)."""
        return self is other

    @property
    def ty(self) -> VarType:
        """TVM's type of the expression (`expr.ty.dtype`)."""
        return VarType(self.dtype)

    def __add__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.ADD, self, other)

    def __radd__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.ADD, other, self)

    def __sub__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.SUB, self, other)

    def __rsub__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.SUB, other, self)

    def __mul__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.MUL, self, other)

    def __rmul__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.MUL, other, self)

    def __truediv__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.DIV, self, other)

    def __rtruediv__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.DIV, other, self)

    def __floordiv__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.FLOORDIV, self, other)

    def __rfloordiv__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.FLOORDIV, other, self)

    def __mod__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.FLOORMOD, self, other)

    def __rmod__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.FLOORMOD, other, self)

    def __neg__(self) -> PrimExpr:
        return binop(BinaryOp.SUB, const(0, self.dtype), self)

    def __lt__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.LT, self, other)

    def __le__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.LE, self, other)

    def __gt__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.GT, self, other)

    def __ge__(self, other: Any) -> PrimExpr:
        return binop(BinaryOp.GE, self, other)

    def __lshift__(self, other: Any) -> PrimExpr:
        return bitop("shift_left", self, other)

    def __rlshift__(self, other: Any) -> PrimExpr:
        return bitop("shift_left", other, self)

    def __rshift__(self, other: Any) -> PrimExpr:
        return bitop("shift_right", self, other)

    def __rrshift__(self, other: Any) -> PrimExpr:
        return bitop("shift_right", other, self)

    def __and__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_and", self, other)

    def __rand__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_and", other, self)

    def __or__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_or", self, other)

    def __ror__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_or", other, self)

    def __xor__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_xor", self, other)

    def __rxor__(self, other: Any) -> PrimExpr:
        return bitop("bitwise_xor", other, self)

    def __invert__(self) -> PrimExpr:
        if self.dtype == "bool":
            return Not(self)
        return Call(self.dtype, "tir.bitwise_not", (self,))

    def astype(self, dtype: str) -> PrimExpr:
        return Cast(dtype, self)

    def __bool__(self) -> bool:
        raise TypeError("a TIR expression has no truth value at Python level; use T.if_then_else")


class BinaryOp(enum.Enum):
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"  # true division for floats, truncating division for ints (TVM's tir.Div)
    MOD = "%"  # truncating modulo (TVM's tir.Mod)
    FLOORDIV = "//"
    FLOORMOD = "floormod"
    MIN = "min"
    MAX = "max"
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    AND = "and"
    OR = "or"

    @property
    def is_comparison(self) -> bool:
        return self in _COMPARISONS

    @property
    def is_logical(self) -> bool:
        return self in (BinaryOp.AND, BinaryOp.OR)


_COMPARISONS = frozenset(
    [BinaryOp.EQ, BinaryOp.NE, BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE]
)
# NOTE: a plain attribute per member: `dtype` is asked millions of times when compiling a
# model, and a set lookup would run Enum.__hash__ in Python each time
for _op in BinaryOp:
    _op.bool_result = _op in _COMPARISONS or _op in (BinaryOp.AND, BinaryOp.OR)


@dataclass(frozen=True, slots=True)
class IntImm(PrimExpr):
    dtype: str
    value: int
    span: Span | None = field(default=None, compare=False, repr=False)

    def __int__(self) -> int:  # TVM users write int(sch.get(v)), int(loop.extent)
        return int(self.value)

    # NOTE: as in TVM, a constant compares with a Python int by value (`T.int32(1) == 1`),
    # hashes as that int, and is true when non-zero
    def __eq__(self, other: object) -> bool:
        if type(other) is IntImm:
            return self.value == other.value and self.dtype == other.dtype
        if isinstance(other, int):
            return self.value == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    def __hash__(self) -> int:
        return hash(self.value)

    def __bool__(self) -> bool:
        return self.value != 0

    def __str__(self) -> str:  # TVM's str() of a constant is its TVMScript: `T.int64(3)`
        return self.script()

    __repr__ = __str__  # TVM's repr too: a list of constants prints `[3, T.int64(4)]`


@dataclass(frozen=True, slots=True)
class FloatImm(PrimExpr):
    dtype: str
    value: float
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:  # TVM's str() of a constant is its TVMScript: `T.float32(1.0)`
        return self.script()

    __repr__ = __str__


@dataclass(frozen=True, slots=True)
class StringImm(PrimExpr):
    value: str
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return "handle"


@dataclass(frozen=True, slots=True, eq=False, init=False)
class Var(PrimExpr):
    """A scalar variable: loop variables, shape variables, buffer data handles."""

    name: str
    dtype: str = "int32"
    span: Span | None = field(default=None, compare=False, repr=False)

    def __init__(self, name: str = "v", dtype: Any = "int32", span: Span | None = None, *,
                 ty: Any = None, name_hint: str | None = None) -> None:
        # NOTE: TVM 0.27 spells the type `ty=` (`tirx.Var("m", ty="int64")`)
        object.__setattr__(self, "name", name_hint if name_hint is not None else name)
        dtype = ty if ty is not None else dtype
        if type(dtype) is not str and _is_plain_pointer(dtype):
            dtype = "handle"  # NOTE: TVM's `PointerType(PrimType("void"))` is T.handle
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "span", span)

    def __repr__(self) -> str:
        return f"Var({self.name}: {self.dtype})"

    @property
    def ty(self) -> Any:
        """TVM's type of the variable: a VarType, or the PointerType it was made with."""
        return VarType(self.dtype) if type(self.dtype) is str else self.dtype


def _is_plain_pointer(ty: Any) -> bool:
    """A pointer to void in no particular scope (what `T.handle()` declares)."""
    return type(ty).__name__ == "PointerType" and not ty.storage_scope and \
        getattr(ty.element_type, "dtype", ty.element_type) == "void"


@dataclass(frozen=True, slots=True)
class VarType:
    """The type of a TIR variable, as `var.ty` gives it; equal to its dtype string too."""

    dtype: str

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.dtype == other
        if type(other).__name__ == "PrimStructInfo":  # TVM's `ir.PrimType(dtype)` (no value)
            return getattr(other, "value", None) is None and getattr(other, "dtype", None) \
                == self.dtype
        return isinstance(other, VarType) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(self.dtype)


@dataclass(frozen=True, slots=True)
class BinOp(PrimExpr):
    op: BinaryOp
    a: PrimExpr
    b: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        # NOTE: down the left operands in a loop: index sums nest deep, and a recursive
        # property was a tenth of lowering's time
        e = self
        while e.__class__ is BinOp:
            if e.op.bool_result:
                return "bool"
            e = e.a
        return e.dtype


@dataclass(frozen=True, slots=True)
class Not(PrimExpr):
    a: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return "bool"


@dataclass(frozen=True, slots=True)
class Cast(PrimExpr):
    dtype: str
    value: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Select(PrimExpr):
    """`T.Select(c, t, f)`: both sides are evaluated; `T.if_then_else` is a `Call`."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("condition", "true_value", "false_value"):  # Python values, as TVM takes
            if isinstance(getattr(self, name), (bool, int, float)):
                object.__setattr__(self, name, const(getattr(self, name)))
        t, f = self.true_value, self.false_value
        if t.dtype != f.dtype and is_int(t.dtype) and is_int(f.dtype):
            # NOTE: integer sides of different widths meet at the wider one (an int32 index
            # beside an int64 one), where TVM's constructor would reject the pair
            wide = promote(t.dtype, f.dtype)
            object.__setattr__(self, "true_value", _cast_or_retype(t, wide))
            object.__setattr__(self, "false_value", _cast_or_retype(f, wide))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.true_value.dtype


@dataclass(frozen=True, slots=True)
class BufferLoad(PrimExpr):
    buffer: Any  # tir.Buffer (kept Any to avoid an import cycle with buffer.py)
    indices: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if type(self.indices) is not tuple:  # TVM's BufferLoad(buf, [0, i]): ints to IntImms
            object.__setattr__(self, "indices", tuple(const(i) for i in self.indices))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.buffer.dtype


def ProducerLoad(producer: Any, indices: Any, span: Span | None = None) -> PrimExpr:  # noqa: N802
    """TVM's load from a te tensor (its producer): a te tensor here owns a buffer, so this is
    a load of that buffer (`ProducerLoad(B, [])` reads a 0-d tensor)."""
    buffer = getattr(producer, "buffer", None)
    if buffer is None:
        raise TypeError(f"ProducerLoad reads a te tensor, got {type(producer).__name__}")
    idx = tuple(const(i) for i in indices)
    if len(idx) != len(buffer.shape):
        raise IndexError(f"ProducerLoad of {buffer.name!r}: {len(buffer.shape)} indices needed, "
                         f"got {len(idx)}")
    return BufferLoad(buffer, idx, span)


@dataclass(frozen=True, slots=True)
class Call(PrimExpr):
    """An intrinsic call by name: `tir.exp`, `tir.if_then_else`, `tir.sqrt`, ..."""

    dtype: str
    op: str
    args: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Let(PrimExpr):
    var: Var
    value: PrimExpr
    body: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.value, (bool, int, float)):  # `Let(x, 1, ...)`, as TVM accepts
            object.__setattr__(self, "value", const(self.value, self.var.dtype))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.body.dtype


# ---------------------------------------------------------------------------------------------
# Construction helpers: Python numbers become immediates of the other operand's dtype.


def const(value: Any, dtype: str | None = None) -> PrimExpr:
    """A Python number (or bool) as an immediate; `dtype` defaults as TVM does."""
    if isinstance(value, PrimExpr):
        return value
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int32" if -(2**31) <= value < 2**31 else "int64"
        elif isinstance(value, float):
            dtype = "float32"
        else:
            raise TypeError(f"cannot use {value!r} ({type(value).__name__}) as a TIR expression")
    if is_float(dtype):
        return FloatImm(dtype, float(value))
    if dtype == "bool":
        return IntImm("bool", int(bool(value)))
    if is_int(dtype) or is_uint(dtype):
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"{value!r} is not an integer, but {dtype} was asked for")
        return IntImm(dtype, int(value))
    raise TypeError(f"cannot make a {dtype} constant from {value!r}")


def _as_operands(a: Any, b: Any) -> tuple[PrimExpr, PrimExpr]:
    if isinstance(a, PrimExpr) and not isinstance(b, PrimExpr):
        return a, const(b, _literal_dtype(b, a.dtype))
    if isinstance(b, PrimExpr) and not isinstance(a, PrimExpr):
        return const(a, _literal_dtype(a, b.dtype)), b
    a, b = const(a), const(b)
    if a.dtype != b.dtype:
        target = promote(a.dtype, b.dtype)
        a = a if a.dtype == target else _cast_or_retype(a, target)
        b = b if b.dtype == target else _cast_or_retype(b, target)
    return a, b


def _literal_dtype(value: Any, other: str) -> str:
    """A literal beside an expression takes its dtype, unless it is a float beside an int."""
    if isinstance(value, float) and not is_float(other):
        return "float32"
    return other


def _cast_or_retype(e: PrimExpr, dtype: str) -> PrimExpr:
    if isinstance(e, IntImm) and (is_int(dtype) or is_uint(dtype)):
        return IntImm(dtype, e.value)
    if isinstance(e, (IntImm, FloatImm)) and is_float(dtype):
        return FloatImm(dtype, float(e.value))
    return Cast(dtype, e)


def binop(op: BinaryOp, a: Any, b: Any, span: Span | None = None) -> PrimExpr:
    a, b = _as_operands(a, b)
    return BinOp(op, a, b, span)


def eq(a: Any, b: Any) -> PrimExpr:
    return binop(BinaryOp.EQ, a, b)


def ne(a: Any, b: Any) -> PrimExpr:
    return binop(BinaryOp.NE, a, b)


_LOGICAL = {"bitwise_and": BinaryOp.AND, "bitwise_or": BinaryOp.OR}


def bitop(name: str, a: Any, b: Any) -> PrimExpr:
    """`a << b`, `a & b`, ...: TVM's `tir.shift_left`, `tir.bitwise_and`, ... calls on integers;
    `&` and `|` of two booleans are the logical operators."""
    a, b = _as_operands(a, b)
    if a.dtype == "bool" and name in _LOGICAL:
        return BinOp(_LOGICAL[name], a, b)
    if is_float(a.dtype):
        raise TypeError(f"{name} needs integer operands, got {a.dtype}")
    return Call(a.dtype, "tir." + name, (a, b))


def all(*conds: Any, span: Span | None = None) -> PrimExpr:  # noqa: A001 (TVM's name)
    """`tir.all(a, b, ...)`: the conditions joined by `and` (True for none)."""
    out: PrimExpr | None = None
    for c in conds:
        out = const(c) if out is None else BinOp(BinaryOp.AND, out, const(c))
    return out if out is not None else IntImm("bool", 1)


def any(*conds: Any, span: Span | None = None) -> PrimExpr:  # noqa: A001 (TVM's name)
    """`tir.any(a, b, ...)`: the conditions joined by `or` (False for none)."""
    out: PrimExpr | None = None
    for c in conds:
        out = const(c) if out is None else BinOp(BinaryOp.OR, out, const(c))
    return out if out is not None else IntImm("bool", 0)
