"""The dataflow-graph IR (Relax): expressions, bindings, blocks and functions.

Every expression carries `struct_info` once normalized (`None` while being built). Variables
compare by identity; all other nodes by value, spans excluded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..tir.attrs import Attrs
from ..tir.expr import IntImm, PrimExpr, Span
from .module import GlobalVar
from .struct_info import (
    MISSING, FuncStructInfo, MissingType, ObjectStructInfo, PrimStructInfo, StructInfo,
    TupleStructInfo,
)

_OPAQUE_FUNC = FuncStructInfo(None, ObjectStructInfo(), False)


class Expr:
    """A relax expression. Python's arithmetic operators build operator calls, as TVM's
    relax expressions do (`x + b` is `relax.add(x, b)`), in TVMScript and with BlockBuilder."""

    __slots__ = ()
    struct_info: StructInfo | None

    @property
    def ty(self) -> StructInfo:
        """TVM 0.27's name for `struct_info` (`Type::Missing()` where none is known)."""
        return self.struct_info if self.struct_info is not None else MISSING

    def same_as(self, other: object) -> bool:
        """TVM's identity test (the same node, not an equal one)."""
        return self is other

    def script(self, **options: Any) -> str:
        """The expression as TVMScript, the variables it uses declared first (as TVM prints a
        node on its own)."""
        from ..script.printer.node_printer import print_node  # the printer lives above ir/

        return print_node(self, **options)

    def __add__(self, other: Any) -> Any:
        return _arith("relax.add", self, other)

    def __radd__(self, other: Any) -> Any:
        return _arith("relax.add", other, self)

    def __sub__(self, other: Any) -> Any:
        return _arith("relax.subtract", self, other)

    def __rsub__(self, other: Any) -> Any:
        return _arith("relax.subtract", other, self)

    def __mul__(self, other: Any) -> Any:
        return _arith("relax.multiply", self, other)

    def __rmul__(self, other: Any) -> Any:
        return _arith("relax.multiply", other, self)

    def __truediv__(self, other: Any) -> Any:
        return _arith("relax.divide", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _arith("relax.divide", other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _arith("relax.floor_divide", self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _arith("relax.floor_divide", other, self)

    def __pow__(self, other: Any) -> Any:
        return _arith("relax.power", self, other)

    # comparisons build calls as TVM's ExprWithOp does (`x > y` in TVMScript is R.greater);
    # == and != stay identity, as everywhere in the IR
    def __gt__(self, other: Any) -> Any:
        return _arith("relax.greater", self, other)

    def __ge__(self, other: Any) -> Any:
        return _arith("relax.greater_equal", self, other)

    def __lt__(self, other: Any) -> Any:
        return _arith("relax.less", self, other)

    def __le__(self, other: Any) -> Any:
        return _arith("relax.less_equal", self, other)

    def astype(self, dtype: str) -> Any:
        """`x.astype("float16")`: `R.astype(x, dtype)`."""
        from .op import op_attr

        return op_attr("relax.astype", "make")(self, dtype)

    def __neg__(self) -> Any:
        from .op import op_attr

        return op_attr("relax.negative", "make")(self)

    def __getitem__(self, index: int) -> "TupleGetItem":
        """`t[i]`: field i of a tuple-valued expression (TVM's ExprWithOp), with its struct
        info when the tuple's is known."""
        if not isinstance(index, int):
            raise TypeError(f"a relax expression is indexed by an int field number, got "
                            f"{type(index).__name__}")
        fields = getattr(self.struct_info, "fields", None)
        # NOTE: a non-tuple is indexed too, as in TVM; its struct info stays unknown and
        # inferring it (bb.normalize, an operator using it) reports the error
        if fields is not None and not -len(fields) <= index < len(fields):
            raise IndexError(f"tuple index {index} out of range for {len(fields)} fields")
        if fields is not None and index < 0:
            index += len(fields)
        return TupleGetItem(self, index, fields[index] if fields is not None else None)

    def __iter__(self) -> Any:
        """A tuple-valued expression unpacks into its fields (`a, b = bb.emit(tuple_call)`)."""
        fields = getattr(self.struct_info, "fields", None)
        if fields is None:
            raise TypeError(f"a relax {type(self).__name__} that is not a tuple is not "
                            "iterable")
        return iter([self[i] for i in range(len(fields))])

    @property
    def shape_(self) -> Any:
        """The 2022 API's shape annotation: a ShapeExpr of a tensor's dims (None if unknown)."""
        s = self.struct_info
        dims = getattr(s, "shape", None)
        if dims is None:
            return None
        from .struct_info import ShapeStructInfo

        return ShapeExpr(tuple(dims), ShapeStructInfo(tuple(dims)))

    @property
    def _checked_type_(self) -> Any:
        """The 2022 API's type: `DynTensorType(ndim, dtype)` for tensors."""
        from .legacy_types import checked_type

        return checked_type(self.struct_info)


def _arith(op: str, a: Any, b: Any) -> Any:
    from .op import op_attr  # NOTE: the op registry sits on top of this module

    return op_attr(op, "make")(a, b)


@dataclass(frozen=True, slots=True, eq=False, init=False)
class Var(Expr):
    name_hint: str
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    def __init__(self, name_hint: str | None = None, struct_info: Any = None,
                 span: Any = None, *, name: str | None = None, ty: Any = None) -> None:
        # NOTE: TVM 0.27 spells them `name=` and `ty=`; tvmlite keeps `name_hint` too
        if name is not None and name_hint is not None:
            raise TypeError("Specify either name or name_hint, not both")
        if name is None and name_hint is None:
            raise TypeError(f"{type(self).__name__} needs a name")
        put = object.__setattr__
        put(self, "name_hint", name if name is not None else name_hint)
        put(self, "struct_info", ty if ty is not None else struct_info)
        put(self, "span", span)
        self.__post_init__()

    def __post_init__(self) -> None:
        if isinstance(self.struct_info, MissingType):  # `Var(name, other.ty)` of an unknown
            object.__setattr__(self, "struct_info", None)
        # NOTE: the 2022 API's Var(name, shape, DynTensorType(ndim, dtype)) lands the shape in
        # struct_info and the type in span; both become one TensorStructInfo.
        if not isinstance(self.struct_info, (StructInfo, type(None))) or (
                self.span is not None and not isinstance(self.span, Span)):
            from .legacy_types import is_legacy_annotation, sinfo_from_legacy

            if is_legacy_annotation(self.struct_info, self.span):
                object.__setattr__(self, "struct_info",
                                   sinfo_from_legacy(self.struct_info, self.span))
                object.__setattr__(self, "span", None)

    def __repr__(self) -> str:
        return f"%{self.name_hint}"

    @property
    def name(self) -> str:
        """TVM 0.27's spelling of `name_hint`."""
        return self.name_hint

    @property
    def ty(self) -> StructInfo:
        """TVM 0.27's name for `struct_info` (`Type::Missing()` where none is known)."""
        return self.struct_info if self.struct_info is not None else MISSING

    def __call__(self, *args: Any) -> Call:
        """`f(x, y)` for a variable holding a function: a call of it (TVM's closures and
        callback parameters such as `fget_param`)."""
        from .struct_info import FuncStructInfo

        sinfo = self.struct_info
        ret = sinfo.ret if isinstance(sinfo, FuncStructInfo) else None
        return Call(self, tuple(_as_expr(a) for a in args), struct_info=ret)


@dataclass(frozen=True, slots=True, eq=False, init=False)
class DataflowVar(Var):
    """A variable local to a dataflow block; invisible after the block ends."""


@dataclass(frozen=True, slots=True, eq=False)
class Constant(Expr):
    """A tensor constant; `data` is a vm NDArray (compared by identity: tensors are big)."""

    data: Any
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Op(Expr):
    """A registered operator by name, e.g. `relax.call_tir`; see `ir.op`."""

    name: str

    @property
    def struct_info(self) -> StructInfo:  # type: ignore[override]
        return ObjectStructInfo()

    @staticmethod
    def get(name: str) -> Op:
        """TVM's `tvm.ir.Op.get("relax.add")`: the registered operator, or a KeyError."""
        from .op import get_op

        return get_op(name)

    def same_as(self, other: object) -> bool:
        """TVM keeps one node per operator, so two Ops of one name are the same node."""
        return isinstance(other, Op) and other.name == self.name

    def get_attr(self, key: str) -> Any:
        """TVM's attribute of the operator (`FInferType` as f(call, context)), or None."""
        from .op import op_attr, op_attr_or_default

        if key in ("FInferType", "FInferStructInfo"):
            infer = op_attr(self.name, "infer_struct_info")
            return None if infer is None else (lambda call, context=None: infer(call))
        return op_attr_or_default(self.name, key)

    def reset_attr(self, key: str) -> None:
        """Drop the operator's attribute `key` (TVM's `Op.reset_attr`)."""
        from .op import reset_op_attr

        reset_op_attr(self.name, key)
        if key in ("FInferType", "FInferStructInfo"):
            reset_op_attr(self.name, "infer_struct_info")


@dataclass(frozen=True, slots=True)
class ExternFunc(Expr):
    """A function found by name in the global registry at run time (`tvm.register_func`)."""

    global_symbol: str
    # NOTE: as TVM's, an opaque impure function (`R.Callable`) unless given more
    struct_info: StructInfo | None = _OPAQUE_FUNC
    span: Span | None = field(default=None, compare=False, repr=False)
    attrs: tuple[tuple[str, Any], ...] = ()  # e.g. an @I.pyfunc's "is_pyfunc"

    @property
    def attr_dict(self) -> dict[str, Any]:
        return dict(self.attrs)

    def with_attr(self, key: str, value: Any) -> ExternFunc:
        return replace(self, attrs=tuple((k, v) for k, v in self.attrs if k != key) +
                       ((key, value),))

    def __call__(self, *args: Any) -> Call:
        """`R.ExternFunc("f", R.Callable(...))(x, y)`: a call of it; its struct info is the
        function's return, or what its `derive_func` rule gives."""
        from .struct_info import FuncStructInfo

        call = Call(self, tuple(_as_expr(a) for a in args))
        sinfo = self.struct_info
        if isinstance(sinfo, FuncStructInfo) and sinfo.derive_func:
            from .ops.derive import derive_struct_info

            return replace(call, struct_info=derive_struct_info(sinfo.derive_func, call))
        return replace(call, struct_info=sinfo.ret if isinstance(sinfo, FuncStructInfo)
                       else None)


@dataclass(frozen=True, slots=True)
class GlobalVarRef(Expr):
    """A GlobalVar used as an expression (a call target or an argument of call_tir)."""

    gvar: GlobalVar
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def name_hint(self) -> str:
        """The global's name (TVM's call_tir holds the GlobalVar itself)."""
        return self.gvar.name_hint


@dataclass(frozen=True, slots=True)
class Call(Expr):
    op: Expr
    args: tuple[Expr, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    sinfo_args: tuple[StructInfo, ...] = ()
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    def __init__(self, op: Expr, args: Any, attrs: Any = (), sinfo_args: Any = (),
                 struct_info: StructInfo | None = None, span: Span | None = None, *,
                 ty_args: Any = None) -> None:
        # TVM 0.27 spells sinfo_args `ty_args=`: relax.Call(op, args, attrs, ty_args=[...])
        put = object.__setattr__
        put(self, "op", op)
        put(self, "args", args)
        put(self, "attrs", attrs)
        put(self, "sinfo_args", sinfo_args if ty_args is None else tuple(ty_args))
        put(self, "struct_info", struct_info)
        put(self, "span", span)
        self.__post_init__()

    def __post_init__(self) -> None:
        if type(self.sinfo_args) is not tuple and self.sinfo_args is not None:
            object.__setattr__(self, "sinfo_args", tuple(self.sinfo_args))
        if type(self.attrs) is not Attrs:  # readable as attrs["k"] and attrs.k, as in TVM
            object.__setattr__(self, "attrs", Attrs(self.attrs or ()))
        # TVM users write relax.Call(op_or_global_var, [args], None, None)
        if type(self.args) is not tuple:
            object.__setattr__(self, "args", tuple(self.args))
        if any(isinstance(a, PrimExpr) for a in self.args):  # `R.prim_value(1)` as TVM 0.27's
            object.__setattr__(self, "args", tuple(_as_expr(a) for a in self.args))
        if self.sinfo_args is None:
            object.__setattr__(self, "sinfo_args", ())
        if isinstance(self.op, GlobalVar):
            object.__setattr__(self, "op", GlobalVarRef(self.op))
        if self.op is None:
            raise ValueError("a relax Call requires a defined operator (an Op, function or "
                             "function-valued expression), not None")
        callee = getattr(self.op, "struct_info", None) if isinstance(self.op, Var) else None
        if self.struct_info is None and hasattr(callee, "ret") and hasattr(callee, "params"):
            object.__setattr__(self, "struct_info", callee.ret)  # a call of a closure var

    @property
    def ty_args(self) -> tuple[StructInfo, ...]:
        """TVM 0.27's name for `sinfo_args`."""
        return self.sinfo_args

    def attr(self, key: str, default: Any = None) -> Any:
        return dict(self.attrs).get(key, default)

    def __call__(self, *args: Any) -> Call:
        """`f(x)(y)`: a call of the function this call returns."""
        return Var.__call__(self, *args)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Tuple(Expr):
    fields: tuple[Expr, ...]
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if type(self.fields) is not tuple:  # TVM users write relax.Tuple([a, b])
            object.__setattr__(self, "fields", tuple(self.fields))
        if any(isinstance(f, PrimExpr) for f in self.fields):  # TVM 0.27's prim values
            object.__setattr__(self, "fields", tuple(_as_expr(f) for f in self.fields))
        if self.struct_info is None and all(
                getattr(f, "struct_info", None) is not None for f in self.fields):
            object.__setattr__(self, "struct_info", TupleStructInfo(
                tuple(f.struct_info for f in self.fields)))

    def __getitem__(self, index: int) -> Expr:  # type: ignore[override]
        if isinstance(index, int) and not -len(self.fields) <= index < len(self.fields):
            raise IndexError(f"Tuple index out of range: {index} of {len(self.fields)} fields")
        return self.fields[index]

    def __iter__(self) -> Any:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)


@dataclass(frozen=True, slots=True)
class TupleGetItem(Expr):
    tuple_value: Expr
    index: int
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ShapeExpr(Expr):
    values: tuple[PrimExpr, ...]
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        values = self.values
        if not isinstance(values, tuple) or any(isinstance(v, int) for v in values):
            object.__setattr__(self, "values", tuple(  # as TVM: ints become int64 immediates
                IntImm("int64", v) if isinstance(v, int) else v for v in values))
        if self.struct_info is None:  # as TVM infers it on construction
            from .struct_info import ShapeDtypeError, ShapeStructInfo

            for v in self.values:  # NOTE: TVM's check: a shape value is an int64
                if v.dtype != "int64":
                    raise ShapeDtypeError(f"the value in ShapeType can only have dtype of "
                                          f"int64; {v} is {v.dtype}")
            object.__setattr__(self, "struct_info", ShapeStructInfo(self.values))

    def __getitem__(self, index: int) -> PrimExpr:  # type: ignore[override]
        if isinstance(index, int) and not -len(self.values) <= index < len(self.values):
            raise IndexError(f"ShapeExpr index out of range: {index} of {len(self.values)} "
                             "dims")
        return self.values[index]

    def __iter__(self) -> Any:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


@dataclass(frozen=True, slots=True)
class PrimValue(Expr):
    value: PrimExpr
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StringImm(Expr):
    value: str
    struct_info: StructInfo | None = ObjectStructInfo()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DataTypeImm(Expr):
    """A dtype as a value (`R.dtype("float32")`), as builtins that allocate take it."""

    value: str
    struct_info: StructInfo | None = ObjectStructInfo()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class If(Expr):
    cond: Expr
    true_branch: SeqExpr
    false_branch: SeqExpr
    struct_info: StructInfo | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


# ---------------------------------------------------------------------------------------------
# Bindings and blocks


@dataclass(frozen=True, slots=True)
class VarBinding:
    var: Var
    value: Expr
    span: Span | None = field(default=None, compare=False, repr=False)

    def script(self, **options: Any) -> str:
        """The binding as TVMScript, the variables its value uses declared first."""
        from ..script.printer.node_printer import print_node  # the printer lives above ir/

        return print_node(self, **options)


@dataclass(frozen=True, slots=True, init=False)
class MatchCast:
    var: Var
    value: Expr
    struct_info: StructInfo
    span: Span | None = field(default=None, compare=False, repr=False)

    def __init__(self, var: Var, value: Expr, struct_info: StructInfo | None = None,
                 span: Span | None = None, *, ty: StructInfo | None = None) -> None:
        # NOTE: TVM 0.27 spells the struct info `ty=` (`relax.MatchCast(v, x, ty=...)`)
        if (struct_info is None) == (ty is None):
            raise TypeError("MatchCast takes the struct info to cast to once (struct_info or "
                            "ty)")
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "struct_info", struct_info if ty is None else ty)
        object.__setattr__(self, "span", span)

    @property
    def ty(self) -> StructInfo:
        """TVM 0.27's name for the struct info cast to."""
        return self.struct_info

    def script(self, **options: Any) -> str:
        """The binding as TVMScript, the variables its value uses declared first."""
        from ..script.printer.node_printer import print_node  # the printer lives above ir/

        return print_node(self, **options)


Binding = VarBinding | MatchCast


@dataclass(frozen=True, slots=True)
class BindingBlock:
    bindings: tuple[Binding, ...]

    def script(self, **options: Any) -> str:
        """The block as TVMScript (a dataflow block in `with R.dataflow():`), the variables
        its bindings use declared first."""
        from ..script.printer.node_printer import print_node  # the printer lives above ir/

        return print_node(self, **options)


@dataclass(frozen=True, slots=True)
class DataflowBlock(BindingBlock):
    pass


@dataclass(frozen=True, slots=True)
class SeqExpr(Expr):
    blocks: tuple[BindingBlock, ...]
    body: Expr
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def struct_info(self) -> StructInfo | None:  # type: ignore[override]
        return self.body.struct_info


def refine_return(params: tuple[Var, ...], ret: StructInfo | None,
                  body: SeqExpr) -> StructInfo | None:
    """A return struct info the body knows more precisely than (`R.Tensor(ndim=2)` for a
    (m, n) result) replaced by the body's, its dims the parameters do not define forgotten:
    what a pass that rebuilds a body returns (Function itself keeps what it is given)."""
    known = body.body.struct_info
    if ret is None or known is None or known == ret:
        return ret
    if isinstance(ret, PrimStructInfo) and ret.value is None:
        return ret  # TVM 0.27's PrimType carries no value for the body's to refine
    from .type_analysis import definable_tir_vars_in_type, erase_to_well_defined, is_base_of

    defined = {v: v for p in params for v in definable_tir_vars_in_type(
        p.struct_info or ObjectStructInfo())}
    known = erase_to_well_defined(known, defined)
    return known if is_base_of(ret, known) else ret


@dataclass(frozen=True, slots=True, eq=False, init=False)
class Function(Expr):
    params: tuple[Var, ...]
    body: SeqExpr
    ret_struct_info: StructInfo | None = None
    is_pure: bool = True
    attrs: tuple[tuple[str, Any], ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)

    def __init__(self, params: Any, body: Expr, ret_struct_info: StructInfo | None = None,
                 is_pure: bool | None = True, attrs: Any = (), span: Span | None = None, *,
                 ret_ty: StructInfo | None = None) -> None:
        # TVM 0.27 writes relax.Function([x], expr, ret_ty=...): any body becomes a SeqExpr
        if not isinstance(body, SeqExpr):
            body = SeqExpr((), body)
        put = object.__setattr__
        put(self, "params", tuple(params))
        put(self, "body", body)
        # NOTE: as TVM 0.27's, a return struct info given is kept even where the body knows
        # more (`R.Tensor(ndim=2)` for a (m, n) result); none given is the body's
        ret = ret_struct_info if ret_ty is None else ret_ty
        put(self, "ret_struct_info", ret)
        put(self, "is_pure", True if is_pure is None else bool(is_pure))
        put(self, "attrs", attrs if type(attrs) is Attrs else Attrs(attrs or ()))
        put(self, "span", span)

    @property
    def ret_ty(self) -> StructInfo | None:
        """TVM 0.27's name for `ret_struct_info`."""
        return self.ret_struct_info

    @property
    def struct_info(self) -> StructInfo:  # type: ignore[override]
        from .struct_info import FuncStructInfo

        params = tuple(p.struct_info or ObjectStructInfo() for p in self.params)
        return FuncStructInfo(params, self.ret_struct_info or ObjectStructInfo(), self.is_pure)

    @property
    def attr_dict(self) -> dict[str, Any]:
        return dict(self.attrs)

    def with_attr(self, key: str | dict[str, Any], value: Any = None) -> Function:
        """A copy with attribute `key` set (or every item of a dict, as TVM accepts)."""
        new = key if isinstance(key, dict) else {key: value}
        attrs = tuple((k, v) for k, v in self.attrs if k not in new) + tuple(new.items())
        return replace(self, attrs=attrs)

    def with_attrs(self, attrs: Any) -> Function:
        """A copy with every attribute of the mapping `attrs` set."""
        return self.with_attr(dict(attrs))

    def bind_params(self, binding_map: dict[Any, Any]) -> Function:
        """A copy with the parameters in `binding_map` (by Var or name) replaced by their
        values (relax expressions, or tensors as constants) and removed, as TVM's."""
        from ..transforms.bind_params import bind_function_params  # a pass, above ir/

        return bind_function_params(self, binding_map)

    def bind_symbolic_vars(self, binding_map: dict[Any, Any]) -> Function:
        """A copy with symbolic dims (by name or tir.Var) replaced by the given values."""
        from ..transforms.bind_symbolic import checked_bind_symbolic_vars  # above ir/

        return checked_bind_symbolic_vars(self, binding_map)

    def inline_functions(self, function_map: dict[Any, Any]) -> Function:
        """A copy with each call of a function in `function_map` (by name or GlobalVar)
        replaced by that function's body."""
        from ..transforms.inline_functions import inline_functions  # a pass, above ir/

        return inline_functions(self, function_map)

    def without_attr(self, key: str) -> Function:
        """A copy without attribute `key`."""
        return replace(self, attrs=tuple((k, v) for k, v in self.attrs if k != key))

    def script(self, **options: Any) -> str:
        """The function as TVMScript; of TVM's printer options, `show_all_ty=True` annotates
        every binding (the others change nothing here)."""
        from ..script.printer import print_relax_function  # the printer lives above ir/

        return print_relax_function(self, **options)

    def show(self, style: str | None = None, black_format: bool | None = None,
             **kwargs: Any) -> None:
        """Print the TVMScript, highlighted as TVM's is (`style="plain"` for none); the
        other options are `script()`'s (`path_to_underline`, ...); `black_format` formats."""
        from ..script.highlight import cprint

        cprint(self.script(**kwargs), style, black_format=bool(black_format))

    def _repr_html_(self) -> str | None:
        from ..script.highlight import html_of

        return html_of(self)


def _as_expr(value: Any) -> Expr:
    if isinstance(value, Expr):
        return value
    from ..script.parser.relax_parser import to_expr  # Python values, as the parser has them

    return to_expr(value)


def update_struct_info(expr: Expr, sinfo: StructInfo | None) -> None:
    """TVM's `relax.expr._update_type`: give a node built by hand its struct info, in place.
    Where a node derives it (a SeqExpr from its body), the two must agree."""
    if any(f.name == "struct_info" for f in fields(expr)):
        object.__setattr__(expr, "struct_info", sinfo)
    elif expr.struct_info != sinfo:
        raise ValueError(f"the struct info of a {type(expr).__name__} follows from its parts "
                         f"({expr.struct_info}); it cannot be set to {sinfo}")


def make_shape(shape: list[Any] | tuple[Any, ...]) -> Expr:
    """TVM's `relax.expr.make_shape`: a ShapeExpr of ints and TIR expressions."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"make_shape takes a list or tuple of dims, not "
                        f"{type(shape).__name__}")
    from .ops.base import shape_expr  # NOTE: the operators build on this module

    return shape_expr(shape)
