"""The rest of `tvm.ir`'s names: base classes that TVM 0.27 shares between its graph IR and
its loop IR (`Node`, `BaseFunc`, `Var`, `Constant`, ...), here abstract classes that the
tvmlite classes of both IRs register with, so `isinstance` answers as in TVM; and the small
objects and helpers (`Range`, `SourceName`, `PointerType`, `register_op_attr`,
`save_json` / `load_json`, ...).
"""

from __future__ import annotations

import abc
import enum
import json
from dataclasses import dataclass
from typing import Any, Callable

from ..tir import expr as tx
from ..tir.attrs import Attrs
from ..tir.function import PrimFunc
from ..tir.stmt import Range as _TirRange
from . import expr as rx
from . import struct_info as si
from .module import IRModule
from .op import set_op_attr


class Node(abc.ABC):  # noqa: B024 (a marker: what TVM calls an IR node)
    """Base of every IR node."""


class BaseFunc(Node):  # noqa: B024
    """Base of all functions: relax functions and prim_funcs."""


class Constant(Node):  # noqa: B024
    """Base of literal constants (relax tensor constants, TIR integer and float literals)."""


class ExprOperand(Node):  # noqa: B024
    """Anything that denotes an expression (relax or TIR)."""


class ExprWithOp(ExprOperand):  # noqa: B024
    """Expressions with Python operators (`a + b`)."""


for _cls in (rx.Expr, tx.PrimExpr, si.StructInfo, IRModule, rx.VarBinding, rx.MatchCast,
             rx.BindingBlock, PrimFunc):
    Node.register(_cls)
for _cls in (rx.Function, PrimFunc):
    BaseFunc.register(_cls)
for _cls in (rx.Constant, tx.IntImm, tx.FloatImm):
    Constant.register(_cls)
for _cls in (rx.Expr, tx.PrimExpr):
    ExprOperand.register(_cls)
    ExprWithOp.register(_cls)


class _VarMeta(abc.ABCMeta):
    def __call__(cls, name: str | None = None, ty: Any = None, span: Any = None, *,
                 name_hint: str | None = None) -> Any:
        name = name if name is not None else (name_hint or "v")
        if isinstance(ty, str) or isinstance(ty, si.PrimStructInfo):
            return tx.Var(name, ty if isinstance(ty, str) else ty.dtype)
        return rx.Var(name, ty, span)


class Var(metaclass=_VarMeta):
    """TVM 0.27's one variable class: `Var("n", "int64")` is a TIR variable, `Var("x",
    R.Tensor(...))` a relax one; both are instances of it."""


Var.register(rx.Var)
Var.register(tx.Var)


class _RangeMeta(abc.ABCMeta):
    def __call__(cls, begin: Any, end: Any = None, span: Any = None) -> Any:
        if end is None:
            begin, end = 0, begin
        lo, hi = tx.const(begin) if isinstance(begin, int) else begin, end
        extent = tx.const(hi - begin) if isinstance(hi, int) and isinstance(begin, int) \
            else hi - lo
        return _TirRange(tx.const(lo) if isinstance(lo, int) else lo, extent)


class Range(metaclass=_RangeMeta):
    """`Range(begin, end)` (or `Range(end)`): TVM's half-open range, as a `tir` Range of
    `min` and `extent`."""

    @staticmethod
    def from_min_extent(min_value: Any, extent: Any, span: Any = None) -> _TirRange:
        return _TirRange.from_extent(extent) if _is_zero(min_value) else _TirRange(
            tx.const(min_value) if isinstance(min_value, int) else min_value,
            tx.const(extent) if isinstance(extent, int) else extent)


Range.register(_TirRange)


def _is_zero(v: Any) -> bool:
    return v == 0 if isinstance(v, int) else isinstance(v, tx.IntImm) and v.value == 0


class CallingConv(enum.IntEnum):
    """How a function is called: TVM's three conventions."""

    DEFAULT = 0
    C_PACKED_FUNC = 1
    DEVICE_KERNEL_LAUNCH = 2


@dataclass(frozen=True)
class SourceName:
    """The name of a source file or string that spans point into."""

    name: str


@dataclass(frozen=True)
class SequentialSpan:
    """Several source spans, as one span."""

    spans: tuple[Any, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "spans", tuple(self.spans))


@dataclass(frozen=True)
class PointerType:
    """The type of a pointer in TIR: what it points to and in which memory scope."""

    element_type: Any
    storage_scope: str = ""

    def script(self, **_options: Any) -> str:
        """`T.handle("int32", "global")`, as TVM 0.27 prints a pointer type."""
        from ..script.printer.tir_node_printer import print_type  # the printer lives above ir

        return print_type(self)


@dataclass(frozen=True)
class StringType:
    """The type of string values."""


class EnvFunc:
    """A function of the global registry, referred to by name (TVM's `EnvFunc.get`)."""

    def __init__(self, name: str, func: Callable[..., Any]) -> None:
        self.name, self.func = name, func

    @staticmethod
    def get(name: str) -> EnvFunc:
        from ..vm.registry import get_global_func

        return EnvFunc(name, get_global_func(name))

    def __call__(self, *args: Any) -> Any:
        return self.func(*args)


DictAttrs = Attrs
Map = dict
StringImm = rx.StringImm


def is_prim_expr(value: object) -> bool:
    """Whether `value` is a TIR (scalar) expression."""
    return isinstance(value, tx.PrimExpr)


def is_prim_var(value: object) -> bool:
    """Whether `value` is a TIR variable."""
    return isinstance(value, tx.Var)


def register_op_attr(op_name: str, attr_key: str, value: Any = None, level: int = 10) -> Any:
    """Attach `attr_key` to operator `op_name` (as a decorator when `value` is omitted)."""
    def register(v: Any) -> Any:
        from .op import list_ops, register_op

        if op_name not in list_ops():  # TVM registers an operator on its first attribute
            register_op(op_name)
        set_op_attr(op_name, attr_key, v)
        if attr_key in ("FInferType", "FInferStructInfo"):  # TVM's f(call, context)
            set_op_attr(op_name, "infer_struct_info", lambda call: v(call, None))
        return v

    return register if value is None else register(value)


def make_node(type_key: str, **kwargs: Any) -> Any:
    """Build a node by TVM's type key; tvmlite knows the attribute dictionaries."""
    if type_key in ("ir.DictAttrs", "DictAttrs"):
        return Attrs(kwargs)
    raise NotImplementedError(f"make_node: tvmlite builds no node of type {type_key!r} by "
                              "key; construct it from its class instead")


_JSON_KIND = "tvmlite.tvmscript"


def save_json(node: Any) -> str:
    """`node` (a module or a function) as JSON: its TVMScript text, which `load_json` parses
    back (TVM's JSON graph format is its C++ object layout, which tvmlite does not have)."""
    if isinstance(node, (rx.Function, PrimFunc)):
        node = IRModule.from_expr(node) if isinstance(node, rx.Function) else \
            IRModule.from_dict({"main": node})
        kind = "function"
    elif isinstance(node, IRModule):
        kind = "module"
    else:
        raise TypeError(f"save_json: tvmlite writes IRModules and functions, not "
                        f"{type(node).__name__}")
    return json.dumps({"format": _JSON_KIND, "kind": kind, "script": node.script()})


def load_json(json_str: str) -> Any:
    """The module or function `save_json` wrote."""
    from ..script import from_source

    data = json.loads(json_str)
    if not isinstance(data, dict) or data.get("format") != _JSON_KIND:
        raise ValueError("load_json: not a document that tvmlite's save_json wrote")
    mod = from_source(data["script"])
    return mod[mod.names()[0]] if data["kind"] == "function" else mod
