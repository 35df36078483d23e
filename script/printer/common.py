"""Shared pieces of the TVMScript printer: the variable namer and the scalar expression printer.

The printer's output must parse back (`script.from_source`) to a structurally equal IR, so
every choice here mirrors what the parser builds: a bare integer literal parses as `int32`
(`int64` in shape positions), other literals are written `T.float32(0.5)`; `%` is floormod and
`/` is `tir.Div`; `T.truncmod` is truncating modulo.
"""

from __future__ import annotations

import json
import keyword
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ...tir import expr as tx
from .source_marks import WATCHED, mark

# Names the printed text needs for itself: they never name a variable.
RESERVED = frozenset({"T", "R", "I", "cls", "range", "metadata", "tvm", "True", "False", "None"})


class Namer:
    """Gives every variable (by identity) a Python name, unique among the names now in scope.

    Scopes free their names on exit, so two sibling loop nests both print `i, j` (as TVM
    does), while a clash with a live name gets a `_1`, `_2` suffix.
    """

    def __init__(self, taken: set[str] | None = None, show_address: bool = False) -> None:
        self.show_address = show_address  # TVM's show_object_address: `x_0x7f..` names
        self.names: dict[int, str] = {}
        self.keep: list[Any] = []  # NOTE: holds the objects so their ids stay unique
        self.scopes: list[list[int]] = [[]]
        self.live: dict[str, int] = {n: 1 for n in (taken or ())}
        self.owners: dict[int, Any] = {}

    def owner_of(self, obj: Any) -> Any:
        """The object whose attribute names `obj` (`A` for `A.data`), if any."""
        return self.owners.get(id(obj)) if id(obj) in self.names else None

    def define(self, obj: Any, hint: str) -> str:
        if id(obj) in self.names:
            return self.names[id(obj)]
        base = _identifier(hint)
        if self.show_address:
            base = f"{base}_0x{id(obj):x}"
        name, k = base, 0
        while name in self.live or name in RESERVED or keyword.iskeyword(name):
            k += 1
            name = f"{base}_{k}"
        self.names[id(obj)] = name
        self.keep.append(obj)
        self.live[name] = self.live.get(name, 0) + 1
        self.scopes[-1].append(id(obj))
        return name

    def alias(self, obj: Any, text: str, owner: Any = None) -> None:
        """Name `obj` by an expression such as `A.data` (freed with the current scope);
        `owner`, when given, is the object the expression reads (`A`)."""
        self.names[id(obj)] = text
        self.keep.append(obj)
        if owner is not None:
            self.owners[id(obj)] = owner
        self.live[text] = self.live.get(text, 0) + 1
        self.scopes[-1].append(id(obj))

    def get(self, obj: Any, hint: str) -> str:
        return self.names.get(id(obj)) or self.define(obj, hint)

    def has(self, obj: Any) -> bool:
        return id(obj) in self.names

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.scopes.append([])
        try:
            yield
        finally:
            for key in self.scopes.pop():
                name = self.names.pop(key)
                self.live[name] -= 1
                if not self.live[name]:
                    del self.live[name]


def _identifier(hint: str) -> str:
    name = re.sub(r"\W", "_", hint or "v")
    return name if name and not name[0].isdigit() else "v_" + name


# ---------------------------------------------------------------------------------------------
# Scalar expressions

_INFIX = {
    tx.BinaryOp.ADD: ("+", 6), tx.BinaryOp.SUB: ("-", 6), tx.BinaryOp.MUL: ("*", 7),
    tx.BinaryOp.DIV: ("/", 7), tx.BinaryOp.FLOORDIV: ("//", 7), tx.BinaryOp.FLOORMOD: ("%", 7),
    tx.BinaryOp.EQ: ("==", 4), tx.BinaryOp.NE: ("!=", 4), tx.BinaryOp.LT: ("<", 4),
    tx.BinaryOp.LE: ("<=", 4), tx.BinaryOp.GT: (">", 4), tx.BinaryOp.GE: (">=", 4),
    tx.BinaryOp.AND: ("and", 2), tx.BinaryOp.OR: ("or", 1),
}
# Operators TVM prints as their node class when infix text would fold or change meaning.
_NODE_NAMES = {
    tx.BinaryOp.ADD: "Add", tx.BinaryOp.SUB: "Sub", tx.BinaryOp.MUL: "Mul",
    tx.BinaryOp.DIV: "Div", tx.BinaryOp.FLOORDIV: "FloorDiv", tx.BinaryOp.FLOORMOD: "FloorMod",
    tx.BinaryOp.EQ: "EQ", tx.BinaryOp.NE: "NE", tx.BinaryOp.LT: "LT", tx.BinaryOp.LE: "LE",
    tx.BinaryOp.GT: "GT", tx.BinaryOp.GE: "GE",
}
_CALLS = {tx.BinaryOp.MIN: "T.min", tx.BinaryOp.MAX: "T.max", tx.BinaryOp.MOD: "T.truncmod"}
_ATOM = 10
SUBROUTINE_PREFIX = "Module"  # NOTE: the class name printer/__init__.py gives a module


def literal(value: Any, dtype: str, bare_int: str = "int32") -> str:
    """A literal as the parser will read it back with the same dtype."""
    if dtype == "bool":
        return f"T.bool({bool(value)})"
    if isinstance(value, float) or dtype.startswith(("float", "bfloat")):
        v = float(value)
        text = f'"{v}"' if math.isinf(v) or math.isnan(v) else repr(v)
        return f"T.{dtype}({text})"
    if dtype == bare_int:
        return str(int(value))
    return f"T.{dtype}({int(value)})"


class ExprPrinter:
    """Prints `tir` scalar expressions; `name_of` gives a variable's (or buffer's) name."""

    def __init__(self, name_of: Callable[[Any], str]) -> None:
        self.name_of = name_of

    def __call__(self, e: Any, bare_int: str = "int32") -> str:
        return self.prec(e, bare_int)[0]

    def prec(self, e: Any, bare_int: str = "int32") -> tuple[str, float]:
        text, p = self._prec(e, bare_int)
        return (mark(e, text), p) if WATCHED else (text, p)

    def _prec(self, e: Any, bare_int: str) -> tuple[str, float]:
        if isinstance(e, tx.Call) and e.op in _BIT_INFIX and len(e.args) == 2:
            return self._bit_infix(e)
        if isinstance(e, tx.Call) and e.op == "tir.bitwise_not" and len(e.args) == 1:
            inner, p = self.prec(e.args[0])
            return f"~{inner if p >= 8 else f'({inner})'}", 8
        if isinstance(e, tx.IntImm):
            text = literal(e.value, e.dtype, bare_int)
            return text, 8 if text.startswith("-") else _ATOM
        if isinstance(e, tx.FloatImm):
            return literal(e.value, e.dtype), _ATOM
        if isinstance(e, tx.BinOp):
            return self._binop(e)
        fn = getattr(self, "_" + type(e).__name__, None)
        if fn is None:
            if isinstance(e, (int, float, bool, str)):
                return value_text(e, str), _ATOM
            raise TypeError(f"cannot print {type(e).__name__} as a TIR expression")
        return fn(e), _ATOM if not isinstance(e, tx.Not) else 3

    def _binop(self, e: tx.BinOp) -> tuple[str, int]:
        if e.op in _CALLS:
            return f"{_CALLS[e.op]}({self(e.a)}, {self(e.b)})", _ATOM
        consts = all(isinstance(x, (tx.IntImm, tx.FloatImm)) for x in (e.a, e.b))
        int_div = e.op is tx.BinaryOp.DIV and not e.dtype.startswith(("float", "bfloat"))
        if e.op in _NODE_NAMES and (consts or int_div):  # as TVM: no folding, no float `/`
            return f"T.{_NODE_NAMES[e.op]}({self(e.a)}, {self(e.b)})", _ATOM
        sym, p = _INFIX[e.op]
        left, lp = self.prec(e.a)
        right, rp = self.prec(e.b)
        chain = p == 4  # NOTE: `a < b < c` means something else in Python
        if lp < p or (chain and lp == p):
            left = f"({left})"
        if rp <= p:
            right = f"({right})"
        return f"{left} {sym} {right}", p

    def _bit_infix(self, e: tx.Call) -> tuple[str, float]:
        """`a << b`, `a & b`, ...: the calls TVM prints as Python's bit operators."""
        sym, p = _BIT_INFIX[e.op]
        left, lp = self.prec(e.args[0])
        right, rp = self.prec(e.args[1])
        left = left if lp >= p else f"({left})"
        right = right if rp > p else f"({right})"
        return f"{left} {sym} {right}", p

    def _Ramp(self, e: Any) -> str:
        return f"T.Ramp({self(e.base)}, {self(e.stride)}, {self._lanes(e.lanes)})"

    def _Broadcast(self, e: Any) -> str:
        return f"T.Broadcast({self(e.value)}, {self._lanes(e.lanes)})"

    def _lanes(self, lanes: Any) -> str:
        """A lane count: an int, or a scalable one such as `T.vscale() * 4`."""
        return self(lanes) if isinstance(lanes, tx.PrimExpr) else str(lanes)

    def _Shuffle(self, e: Any) -> str:
        vectors = ", ".join(self(v) for v in e.vectors)
        return f"T.Shuffle([{vectors}], [{', '.join(self(i) for i in e.indices)}])"

    def _Buffer(self, e: Any) -> str:  # a buffer inside an attribute value
        return self.name_of(e)

    def _Var(self, e: tx.Var) -> str:
        return self.name_of(e)

    def _StringImm(self, e: tx.StringImm) -> str:
        return q(e.value)

    def _Not(self, e: tx.Not) -> str:
        inner, p = self.prec(e.a)
        return f"not {inner if p > 3 else f'({inner})'}"

    def _Cast(self, e: tx.Cast) -> str:
        return f'T.Cast("{e.dtype}", {self(e.value)})'

    def _Select(self, e: tx.Select) -> str:
        return f"T.Select({self(e.condition)}, {self(e.true_value)}, {self(e.false_value)})"

    def _BufferLoad(self, e: tx.BufferLoad) -> str:
        return f"{self.name_of(e.buffer)}[{self.indices(e.indices)}]"

    def _Let(self, e: tx.Let) -> str:
        return f"T.let({self.name_of(e.var)}, {self(e.value)}, {self(e.body)})"

    def _Call(self, e: tx.Call) -> str:
        from .. import tir as T

        args = ", ".join(self(a) for a in e.args)
        if e.op.startswith("@"):  # another function of the module
            return f"{SUBROUTINE_PREFIX}.{e.op[1:]}({args})"
        intrinsic = _intrinsic_text(e, args)
        if intrinsic is not None:
            return intrinsic
        name = e.op[4:] if e.op.startswith("tir.") else ""
        if name and callable(getattr(T, name, None)) and _call_dtype_ok(e, name):
            return f"T.{name}({args})"
        return f'T.call_intrin("{e.dtype}", "{e.op}"{", " + args if args else ""})'

    def indices(self, idx: tuple[Any, ...]) -> str:
        if not idx:
            return "()"
        return ", ".join(self(i) for i in idx)


# Calls printed as Python's bit operators, with Python's precedence (between `+` and `==`).
_BIT_INFIX = {"tir.shift_left": ("<<", 5.0), "tir.shift_right": (">>", 5.0),
              "tir.bitwise_and": ("&", 4.75), "tir.bitwise_xor": ("^", 4.5),
              "tir.bitwise_or": ("|", 4.25)}


def _intrinsic_text(e: tx.Call, args: str) -> str | None:
    """`T.<name>(...)` for a call of a `T` intrinsic (script/tir_intrin.py) that rebuilds it."""
    from ..tir_intrin import INTRINSICS, PRINT_NAME, result_dtype

    name = PRINT_NAME.get(e.op)
    if name is None:
        return None
    spec = INTRINSICS[name]
    if spec.result == "first":
        return f'T.{name}("{e.dtype}"{", " + args if args else ""})'
    if spec.result == "last":
        return f'T.{name}({args + ", " if args else ""}"{e.dtype}")'
    if result_dtype(spec, e.args) == e.dtype:
        return f"T.{name}({args})"
    return None


def _call_dtype_ok(e: tx.Call, name: str) -> bool:
    """Would `T.<name>(args)` rebuild this call with the same dtype?"""
    if name in ("likely", "isnan"):
        return e.dtype == "bool"
    if name == "tvm_storage_sync":
        return e.dtype == "int32" and len(e.args) == 1
    if name == "if_then_else":
        return len(e.args) == 3 and e.dtype == e.args[1].dtype
    return bool(e.args) and e.dtype == e.args[0].dtype


def decorator_options(attrs: Any, name: str) -> tuple[dict[str, Any], list[str]]:
    """(attrs left to print, decorator options): no `global_symbol` means `private=True`, and
    a `global_symbol` equal to the function's name goes without saying."""
    attrs = dict(attrs)
    opts = []
    if "global_symbol" not in attrs:
        opts.append("private=True")
    elif attrs["global_symbol"] == name:
        del attrs["global_symbol"]
    return attrs, opts


def q(s: str) -> str:
    """A string literal in double quotes, as TVM prints them."""
    return json.dumps(s)


def value_text(v: Any, expr: Callable[[Any], str]) -> str:
    """A Python-level value (attribute, annotation) as source text."""
    if isinstance(v, tx.PrimExpr) or type(v).__name__ == "Buffer":
        return expr(v)
    if isinstance(v, str):
        return q(v)
    if isinstance(v, bool) or v is None or isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else f'float("{v}")'
    if isinstance(v, tuple):
        inner = ", ".join(value_text(x, expr) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x, expr) for x in v) + "]"
    if isinstance(v, dict):
        items = ", ".join(f"{value_text(k, expr)}: {value_text(x, expr)}" for k, x in v.items())
        return "{" + items + "}"
    if type(v).__name__ == "Target":  # tvm.target.Target, as `T.target(...)` reads it back
        host = getattr(v, "host", None)
        return f"T.target({q(str(v))}{f', host={q(str(host))}' if host is not None else ''})"
    if hasattr(v, "script_text"):  # a global info: I.vdevice(...), I.dummy_global_info()
        return str(v.script_text())
    return repr(v)


def header(body: str, module: bool) -> str:
    """The `# from tvm.script import ...` lines for the namespaces the text uses."""
    lines = []
    for ns, name in (("I", "ir"), ("T", "tirx"), ("R", "relax")):
        if (ns == "I" and module) or re.search(rf"(?<![\w.]){ns}\.", body):
            lines.append(f"# from tvm.script import {name} as {ns}")
            if ns == "T":  # TVM 0.27 names the layout module whenever it imports T
                lines.append("# from tvm.tirx.layout import Axis")
    return "\n".join(lines) + "\n\n" + body if lines else body
