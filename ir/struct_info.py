"""Struct info: what the graph IR knows statically about a value (TVM's StructInfo).

Shapes hold TIR expressions, so a symbolic dim `n` is a `tir.Var` shared by every tensor that
has it. `shape=None` means the rank may be known (`ndim`) but the dims are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tir.expr import IntImm, PrimExpr, Var


class StructInfo:
    __slots__ = ()

    def script(self, **options: Any) -> str:
        """The struct info as TVMScript, its symbolic dims declared first (as TVM prints)."""
        from ..script.printer.node_printer import print_node  # the printer lives above ir/

        return print_node(self, **options)

    def _relax_script(self) -> str:
        from ..script.printer.node_printer import sinfo_text

        return sinfo_text(self)

    def is_base_of(self, derived: StructInfo) -> bool:
        """Whether every value of struct info `derived` also has this struct info."""
        from .type_analysis import is_base_of

        return is_base_of(self, derived)

    def is_missing(self) -> bool:
        """TVM 0.27's test for `Type::Missing()` (only MissingType answers True)."""
        return False


@dataclass(frozen=True, slots=True)
class ObjectStructInfo(StructInfo):
    pass


@dataclass(frozen=True, slots=True)
class PackedFuncType(ObjectStructInfo):
    """TVM's `relax.PackedFuncType`: a function from the global registry, opaque to the
    compiler; everything but the printer treats it as the object it is (`R.Any`)."""


@dataclass(frozen=True, slots=True)
class MissingType(StructInfo):
    """TVM 0.27's `Type::Missing()`: what `.ty` answers for a node whose struct info is not
    known (yet); the node itself keeps None."""

    def is_missing(self) -> bool:
        return True


MISSING = MissingType()


@dataclass(frozen=True, slots=True)
class PrimStructInfo(StructInfo):
    dtype: str = "int64"
    value: PrimExpr | None = None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):  # TVM 0.27: `buf.dtype == ir.PrimType("float32")`
            return self.value is None and self.dtype == other
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.dtype, self.value) == (other.dtype, other.value)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class ShapeStructInfo(StructInfo):
    values: tuple[PrimExpr, ...] | None = None
    ndim: int = -1

    def __post_init__(self) -> None:
        if self.values is not None:
            object.__setattr__(self, "values", _dims(self.values))
            if self.ndim == -1:
                object.__setattr__(self, "ndim", len(self.values))


class ShapeDims(tuple):  # type: ignore[type-arg]
    """A tensor's dims: a tuple that also answers as the shape expression TVM keeps there
    (`sinfo.shape.values`, `sinfo.shape.ty`)."""

    __slots__ = ()

    @property
    def values(self) -> tuple[PrimExpr, ...]:
        return self

    @property
    def struct_info(self) -> ShapeStructInfo:
        return ShapeStructInfo(tuple(self))

    ty = struct_info


@dataclass(frozen=True, slots=True)
class TensorStructInfo(StructInfo):
    shape: tuple[PrimExpr, ...] | None = None
    dtype: str = "float32"  # TVM's default when none is given; "" or None = unknown dtype
    ndim: int = -1  # -1 = unknown rank
    vdevice: str | None = None

    def __post_init__(self) -> None:
        if self.dtype is None:  # TVM: None and "" both leave the dtype unknown
            object.__setattr__(self, "dtype", "")
        if self.shape is not None and _is_shape_var(self.shape):
            # NOTE: TVM lets a shape-typed relax variable stand for the shape; we keep only its
            # rank, which is what a pass may rely on (the values are known at run time only)
            ndim = getattr(self.shape.struct_info, "ndim", -1)
            object.__setattr__(self, "shape", None)
            object.__setattr__(self, "ndim", ndim if self.ndim == -1 else self.ndim)
        if self.shape is not None:
            if type(self.shape) is not ShapeDims:
                # users write relax.TensorStructInfo((128, 128), "float32"): ints -> IntImms
                object.__setattr__(self, "shape", ShapeDims(_dims(self.shape)))
            if self.ndim == -1:
                object.__setattr__(self, "ndim", len(self.shape))

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        """The shape as ints when every dim is a constant."""
        if self.shape is None or not all(isinstance(d, IntImm) for d in self.shape):
            return None
        return tuple(d.value for d in self.shape)  # type: ignore[union-attr]


@dataclass(frozen=True, slots=True)
class TupleStructInfo(StructInfo):
    fields: tuple[StructInfo, ...]

    def __post_init__(self) -> None:
        if type(self.fields) is not tuple:  # TVM users pass lists
            object.__setattr__(self, "fields", tuple(self.fields))


@dataclass(frozen=True, slots=True)
class FuncStructInfo(StructInfo):
    params: tuple[StructInfo, ...] | None
    ret: StructInfo
    purity: bool = True
    derive_func: str | None = None  # a registered rule giving a call's struct info (TVM's)

    def __post_init__(self) -> None:
        if self.params is not None and type(self.params) is not tuple:
            object.__setattr__(self, "params", tuple(self.params))

    @staticmethod
    def opaque_func(ret: StructInfo | None = None, purity: bool = False) -> FuncStructInfo:
        """A function whose parameters are unknown (TVM's `FuncType.opaque_func`)."""
        return FuncStructInfo(None, ret or ObjectStructInfo(), purity)


class ShapeDtypeError(ValueError, RuntimeError):
    """A shape holds a non-integer value (TVM raises a RuntimeError for it)."""


def _is_shape_var(shape: Any) -> bool:
    return isinstance(getattr(shape, "struct_info", None), ShapeStructInfo) and \
        type(shape).__name__ in ("Var", "DataflowVar")


def _dims(shape: Any) -> tuple[PrimExpr, ...]:
    shape = getattr(shape, "values", shape)  # TVM passes a relax.ShapeExpr too
    if all(isinstance(d, PrimExpr) for d in shape) and isinstance(shape, tuple):
        dims = shape
    else:
        dims = tuple(IntImm("int64", int(d)) if not isinstance(d, PrimExpr) else d
                     for d in shape)
    for d in dims:  # NOTE: vars only: a dtype is cheap to read there, and is where it goes wrong
        if type(d) is Var and not d.dtype.startswith(("int", "uint")):
            raise ShapeDtypeError(f"the value in ShapeType can only have dtype of int64; "
                                  f"{d.name} is {d.dtype}")
    return dims


def tensor_sinfo(shape: Any, dtype: str = "float32") -> TensorStructInfo:
    """`R.Tensor((1, 128), "float32")` from Python ints and TIR expressions."""
    from ..tir.expr import const

    dims = tuple(const(d, "int64") if isinstance(d, int) else d for d in shape)
    return TensorStructInfo(dims, dtype)


def call_ret_sinfo(func: FuncStructInfo, args: Any) -> StructInfo:
    """What calling `func` with `args` returns, in the caller's terms: the symbolic dims the
    callee's parameters define are replaced by the arguments' dims and any other dim is
    forgotten (TVM derives a call's struct info this way), so `f(x)` with x (n, 4) and
    f: (m, 4) -> (m, 8) gives (n, 8)."""
    if func.params is None:
        return func.ret
    from .type_analysis import erase_to_well_defined

    bound: dict[Any, PrimExpr] = {}
    for param, arg in zip(func.params, args):
        bind_param_dims(param, getattr(arg, "struct_info", None), bound)
    return erase_to_well_defined(func.ret, bound)


def bind_param_dims(param: Any, arg: Any, bound: dict[Any, PrimExpr]) -> None:
    """The symbolic dims of parameter struct info `param`, as argument struct info `arg`
    gives them, added to `bound` (first binding wins)."""
    from ..tir.expr import Var

    if isinstance(param, TupleStructInfo) and isinstance(arg, TupleStructInfo):
        for p, a in zip(param.fields, arg.fields):
            bind_param_dims(p, a, bound)
        return
    dims = {TensorStructInfo: "shape", ShapeStructInfo: "values"}.get(type(param))
    if dims is None or type(arg) is not type(param):
        return
    for p, a in zip(getattr(param, dims) or (), getattr(arg, dims) or ()):
        if isinstance(p, Var):
            bound.setdefault(p, a)
