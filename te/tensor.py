"""Tensor expressions: `placeholder`, `compute`, `reduce_axis` and the reducers (TVM's `te`).

A `Tensor` owns a TIR `Buffer`; indexing it (`A[i, j]`) gives a `BufferLoad` of that buffer, so
compute bodies are plain TIR expressions. A reduction is a `Reduce` node at the top of a body.
`create_prim_func` (prim_func.py) turns the graph of tensors into a PrimFunc with one block per
compute, as TVM's does.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

from ..tir import expr as tx
from ..tir.stmt import Buffer, IterType, Range, make_buffer

# NOTE: buffers compare by identity; this maps each te buffer back to its tensor so that
# create_prim_func can walk from outputs to inputs through the BufferLoads of bodies.
_TENSOR_OF: dict[Buffer, Tensor] = {}


@dataclass(frozen=True, slots=True, eq=False)
class AxisVar(tx.Var):
    """An iteration axis usable inside expressions (`te.reduce_axis`, `C.op.axis[0]`)."""

    dom: Range | None = None
    iter_type: IterType = IterType.SPATIAL

    @property
    def var(self) -> AxisVar:
        return self


@dataclass(frozen=True, slots=True)
class Reduce(tx.PrimExpr):
    """`te.sum(expr, axis=k)`: only valid as the whole body of a compute."""

    combiner: str  # "sum" | "prod" | "max" | "min"
    source: tx.PrimExpr
    axis: tuple[AxisVar, ...]
    condition: tx.PrimExpr | None = None
    init: tx.PrimExpr | None = None
    span: tx.Span | None = field(default=None, compare=False, repr=False)
    # a tuple reduction (argmax's (index, value)): every value reduced together, this
    # Reduce being the `value_index`-th; empty for a reduction of one value
    sources: tuple[tx.PrimExpr, ...] = ()
    value_index: int = 0

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.source.dtype


class Operation:
    """What every te op answers, as TVM's `te.Operation`: its outputs and the tensors it reads."""

    def results(self) -> list[Tensor]:
        raise NotImplementedError

    def output(self, index: int) -> Tensor:
        """The `index`-th output (the very tensor the op was built with)."""
        outs = self.results()
        if not 0 <= index < len(outs):
            raise IndexError(f"op {getattr(self, 'name', '?')!r} has {len(outs)} output(s), "
                             f"asked for output {index}")
        return outs[index]

    @property
    def num_outputs(self) -> int:
        return len(self.results())

    @property
    def input_tensors(self) -> list[Tensor]:
        raise NotImplementedError


@dataclass(eq=False)
class ComputeOp(Operation):
    name: str
    axis: tuple[AxisVar, ...]
    body: tx.PrimExpr
    tag: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)
    nest: LoopNest | None = None  # tvmlite: the loop order create_prim_func emits
    # tvmlite: (acc, expr): each element becomes `expr` (over `acc`, its reduced value, and
    # the axes) once its reduction is done, inside the loop nest (see with_epilogue)
    epilogue: tuple[tx.Var, tx.PrimExpr] | None = None
    # tvmlite: the small local buffer an epilogue's tile accumulates in (see with_epilogue)
    accumulator: Buffer | None = None
    # every output's body and tensor when the compute has several (`body` is the first)
    bodies: tuple[tx.PrimExpr, ...] = ()
    outputs: list[Tensor] = field(default_factory=list)

    @property
    def reduce_axis(self) -> tuple[AxisVar, ...]:
        return self.body.axis if isinstance(self.body, Reduce) else ()

    def results(self) -> list[Tensor]:
        return self.outputs

    @property
    def input_tensors(self) -> list[Tensor]:
        found: list[Tensor] = []
        for body in self.bodies or (self.body,):
            found += [t for t in tensors_read(body) if t not in found]
        return found


@dataclass(frozen=True)
class LoopNest:
    """How `create_prim_func` lays out the loops of one compute (a tvmlite extension; TVM's
    create_prim_func always emits spatial axes then reduce axes, outermost first).

    `order`: every loop, outermost first, by axis name: "y" is the whole axis, "y.o"/"y.i" the
    outer/inner parts of an axis split by `split[name]` (an inner extent dividing the axis'
    constant extent). `kinds`: loop name -> ForKind ("unroll", "vectorized"). When a spatial
    loop runs inside a reduce loop, the reduction is decomposed as TVM's decompose_reduction
    does at the first reduce loop: inside the spatial loops around it, a `<name>_init` block
    over the remaining spatial loops (their variables suffixed `_init`), then the update
    block without `T.init()`. Each output element still accumulates in the order of the
    reduce loops."""

    order: tuple[str, ...]
    split: tuple[tuple[str, int], ...] = ()
    kinds: tuple[tuple[str, str], ...] = ()


def loop_nest(t: Tensor, order: Any, split: dict[str, int] | None = None,
              kinds: dict[str, str] | None = None) -> Tensor:
    """Sets the loop nest of compute tensor `t` (see LoopNest); returns `t`. Checks that
    `order` names every loop once and that each split divides its axis."""
    op = t.op
    assert isinstance(op, ComputeOp)
    axes = {a.name: a for a in tuple(op.axis) + tuple(op.reduce_axis)}
    split = dict(split or {})
    want = []
    for name, a in axes.items():
        if name in split:
            ext = a.dom.extent if a.dom is not None else None  # type: ignore[union-attr]
            if not isinstance(ext, tx.IntImm) or ext.value % split[name]:
                raise ValueError(f"loop_nest: split of {name!r} by {split[name]} does not "
                                 f"divide its extent {ext}")
            want += [f"{name}.o", f"{name}.i"]
        else:
            want.append(name)
    if sorted(order) != sorted(want):
        raise ValueError(f"loop_nest: order {list(order)} must name each of {want} once")
    op.nest = LoopNest(tuple(order), tuple(split.items()), tuple((kinds or {}).items()))
    return t


def with_epilogue(t: Tensor, fn: Callable[..., tx.PrimExpr]) -> bool:
    """tvmlite: makes each element of the reduction `t` `fn(value, *axes)` once its reduction
    is done, in the same loop nest: a bias or activation applied while the tile is in cache
    (or registers), not in a pass of its own. Only for a loop nest whose reduction is
    decomposed (a spatial loop inside a reduce loop); returns False, setting nothing,
    otherwise."""
    op = t.op
    if not (isinstance(op, ComputeOp) and isinstance(op.body, Reduce) and op.nest is not None
            and decomposes(op.nest, op.body)):
        return False
    acc = tx.Var("acc", t.dtype)
    op.epilogue = (acc, fn(acc, *op.axis))
    tile = _tile_elements(op.nest, op.body, op.axis)
    if tile is not None and tile <= ACCUMULATOR_MAX_ELEMENTS:
        # NOTE: accumulating in the output itself, LLVM keeps the tile in registers only
        # while it can prove nothing else touches it; an epilogue that reads another
        # buffer (a residual) broke that and made ResNet's residual convs 6x slower. A
        # local tile becomes a stack array, always promoted to registers.
        op.accumulator = make_buffer(f"{t.buffer.name}_local", t.shape, t.dtype,
                                     scope="local")
    return True


ACCUMULATOR_MAX_ELEMENTS = 4096


def _tile_elements(nest: LoopNest, red: Reduce, axis: tuple[AxisVar, ...]) -> int | None:
    """Elements of the output tile one reduction pass covers (the spatial loops inside the
    first reduce loop), when every extent is a constant."""
    reduce_names = {a.name for a in red.axis}
    parts = [name.partition(".")[0] in reduce_names for name in nest.order]
    inner = nest.order[parts.index(True):] if True in parts else ()
    split, extents = dict(nest.split), {a.name: a.dom.extent for a in axis}  # type: ignore
    count = 1
    for name in inner:
        base, _, part = name.partition(".")
        if base in reduce_names:
            continue
        ext = extents[base]
        if not isinstance(ext, tx.IntImm):
            return None
        count *= split[base] if part == "i" else ext.value // split[base] if part else ext.value
    return count


def decomposes(nest: LoopNest, red: Reduce) -> bool:
    """Whether a spatial loop of `nest` runs inside one of the reduction's loops."""
    reduce_names = {a.name for a in red.axis}
    parts = [name.partition(".")[0] in reduce_names for name in nest.order]
    first = parts.index(True) if True in parts else len(parts)
    return not all(parts[first:])


@dataclass(eq=False)
class PlaceholderOp(Operation):
    name: str
    tensor: Tensor | None = None  # the placeholder itself

    def results(self) -> list[Tensor]:
        return [self.tensor] if self.tensor is not None else []

    @property
    def input_tensors(self) -> list[Tensor]:
        return []


class Tensor:
    """A te tensor: `A[i, j]` loads from it; `.shape`, `.dtype`, `.op`, `.name`."""

    def __init__(self, buffer: Buffer, op: ComputeOp | PlaceholderOp, value_index: int = 0
                 ) -> None:
        self.buffer, self.op, self.value_index = buffer, op, value_index
        _TENSOR_OF[buffer] = self

    @property
    def shape(self) -> tuple[tx.PrimExpr, ...]:
        return self.buffer.shape

    @property
    def dtype(self) -> str:
        return self.buffer.dtype

    @property
    def name(self) -> str:
        return self.buffer.name

    @property
    def ndim(self) -> int:
        return len(self.buffer.shape)

    def __getitem__(self, indices: Any) -> Any:
        idx = indices if isinstance(indices, tuple) else (indices,)
        if 0 < len(idx) < self.ndim:  # `A[i][j]`: TVM's partial index
            return TensorSlice(self, idx)
        if len(idx) != self.ndim:
            raise IndexError(f"tensor {self.name!r} has {self.ndim} dims, indexed with "
                             f"{len(idx)}")
        return tx.BufferLoad(self.buffer, tuple(index_const(i) for i in idx))

    def __call__(self, *indices: Any) -> tx.BufferLoad:
        """`A(i, j)`, TVM's other spelling of `A[i, j]` (the MLC course writes `A(*i)`)."""
        return self[indices]

    def __repr__(self) -> str:
        return f"Tensor({self.name}, {list(self.shape)}, {self.dtype})"

    # TVM overloads arithmetic on whole tensors with topi's broadcasting computes
    # (`x * 0.5` is `topi.multiply(x, 0.5)`); scalars take the tensor's dtype.
    def __add__(self, other: Any) -> Tensor:
        return _topi_binary("add", self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _topi_binary("add", other, self)

    def __sub__(self, other: Any) -> Tensor:
        return _topi_binary("subtract", self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _topi_binary("subtract", other, self)

    def __mul__(self, other: Any) -> Tensor:
        return _topi_binary("multiply", self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _topi_binary("multiply", other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return _topi_binary("divide", self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _topi_binary("divide", other, self)

    def __neg__(self) -> Tensor:
        return _topi_binary("multiply", self, tx.const(-1, self.dtype))

    def astype(self, dtype: str) -> Tensor:
        from .. import topi

        return topi.cast(self, dtype)


def _topi_binary(name: str, a: Any, b: Any) -> Tensor:
    from .. import topi  # topi builds on te

    return getattr(topi, name)(a, b)


class TensorSlice:
    """`A[i]` of a 2-D tensor: indexed again (`A[i][j]`) it reads the element."""

    def __init__(self, tensor: Tensor, indices: tuple[Any, ...]) -> None:
        self.tensor, self.indices = tensor, indices

    @property
    def dtype(self) -> str:
        return self.tensor.dtype

    def __getitem__(self, indices: Any) -> Any:
        more = indices if isinstance(indices, tuple) else (indices,)
        return self.tensor[self.indices + more]

    def asobject(self) -> Any:
        """The element when every index is given (TVM's spelling)."""
        return self.tensor[self.indices]


def tensor_of(buf: Buffer) -> Tensor | None:
    return _TENSOR_OF.get(buf)


def index_const(value: Any) -> tx.PrimExpr:
    """A Python int used as a dim or index: an int32 constant (int64 past int32's range) as in
    TVM; an IntImm or expression keeps its dtype (relax shapes give int64). The build's
    scheduled computes (topi/schedule_mode.py) keep tvmlite's all-int64 index form, so the
    kernels it compiles do not depend on how a topi compute spells its shapes."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        return tx.const(value)
    from ..topi.schedule_mode import scheduled  # NOTE: lazy, topi imports te

    return tx.const(int(value), "int64" if scheduled() else None)


def _dims(shape: Any) -> tuple[tx.PrimExpr, ...]:
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(index_const(d) for d in items)


def placeholder(shape: Any, dtype: str = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor of the prim_func being built."""
    op = PlaceholderOp(name)
    op.tensor = Tensor(make_buffer(name, _dims(shape), str(dtype)), op)
    return op.tensor


def compute(shape: Any, fcompute: Callable[..., Any], name: str = "compute", tag: str = "",
            attrs: dict[str, Any] | None = None) -> Tensor:
    """`te.compute((m, n), lambda i, j: A[i, j] + 1.0)`: one value per index of `shape`."""
    dims = _dims(shape)
    names = _param_names(fcompute, len(dims))
    axis = tuple(AxisVar(n, d.dtype, None, Range(tx.const(0, d.dtype), d))
                 for n, d in zip(names, dims))
    body = fcompute(*axis)
    tag = tag or current_tag()
    if isinstance(body, (list, tuple)):
        from .multi_output import multi_output_compute

        return multi_output_compute(name, dims, axis, tuple(body), tag, dict(attrs or {}))
    body = tx.const(body) if not isinstance(body, tx.PrimExpr) else body
    check_reductions_on_top((body,))
    dtype = body.dtype
    op = ComputeOp(name, axis, body, tag, dict(attrs or {}))
    op.outputs = [Tensor(make_buffer(name, dims, dtype), op)]
    return op.outputs[0]


def tensors_read(body: tx.PrimExpr) -> list[Tensor]:
    """The te tensors whose elements `body` loads, in first-use order."""
    from ..tir.functor import Mutator

    found: list[Tensor] = []

    class _Walk(Mutator):
        def visit_BufferLoad(self, e: tx.BufferLoad) -> tx.PrimExpr:
            t = tensor_of(e.buffer)
            if t is not None and t not in found:
                found.append(t)
            self.visit(e.indices)
            return e

    _Walk().visit(body)
    return found


def check_reductions_on_top(bodies: tuple[tx.PrimExpr, ...]) -> None:
    """A reduction must be a compute's whole body, as TVM requires (RuntimeError otherwise)."""
    from ..tir.functor import Visitor

    class _Nested(Visitor):
        def visit_Reduce(self, e: Reduce) -> None:
            raise RuntimeError("te.compute: a reduction must be the whole body of a compute, "
                               f"not part of an expression (found {e.combiner} inside one)")

    for body in bodies:
        top = (body.source, *body.sources) if isinstance(body, Reduce) else (body,)
        for part in top:
            _Nested().visit(part)


class tag_scope:  # noqa: N801 (TVM's name)
    """`with te.tag_scope("conv"):` or `@te.tag_scope(tag="conv")`: computes made inside get
    the tag (when they give none themselves); scopes do not nest, as in TVM."""

    _current: str | None = None

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __enter__(self) -> tag_scope:
        if tag_scope._current is not None:
            raise ValueError("te.tag_scope: nested tag scopes are not allowed")
        tag_scope._current = self.tag
        return self

    def __exit__(self, *exc: Any) -> None:
        tag_scope._current = None

    def __call__(self, fdecl: Callable[..., Any]) -> Callable[..., Any]:
        def tagged(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fdecl(*args, **kwargs)
        tagged.__name__ = getattr(fdecl, "__name__", "tagged")
        return tagged


def current_tag() -> str:
    return tag_scope._current or ""


def _param_names(f: Callable[..., Any], n: int) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = []
    if len(params) == 1 and params[0].kind is inspect.Parameter.VAR_POSITIONAL:
        return [f"i{k}" for k in range(n)]
    if len(params) != n:
        raise ValueError(f"te.compute: the function takes {len(params)} indices but the shape "
                         f"has {n} dimensions")
    return [p.name for p in params]


def reduce_axis(dom: Any, name: str = "rv") -> AxisVar:
    """A reduction axis over `dom` = extent or (min, max)."""
    if isinstance(dom, (tuple, list)):
        lo, hi = (index_const(d) for d in dom)
        rng = Range(lo, hi - lo if not (isinstance(lo, tx.IntImm) and lo.value == 0) else hi)
    else:
        ext = index_const(dom)
        rng = Range(tx.const(0, ext.dtype), ext)
    return AxisVar(name, rng.extent.dtype, None, rng, IterType.REDUCE)


def _reducer(combiner: str) -> Callable[..., Reduce]:
    def reduce(expr: Any, axis: Any, where: Any = None, init: Any = None) -> Any:
        if isinstance(axis, (tx.PrimExpr, int, float)) and not isinstance(axis, AxisVar):
            # NOTE: TVM's te.max(a, b) on two values (no axis) is the elementwise max
            return _ELEMENTWISE[combiner](expr, axis)
        axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
        return Reduce(combiner, tx.const(expr), axes, where,
                      None if init is None else tx.const(init))
    reduce.__name__ = combiner
    return reduce


_ELEMENTWISE = {
    "sum": lambda a, b: tx.binop(tx.BinaryOp.ADD, a, b),
    "prod": lambda a, b: tx.binop(tx.BinaryOp.MUL, a, b),
    "max": lambda a, b: tx.binop(tx.BinaryOp.MAX, a, b),
    "min": lambda a, b: tx.binop(tx.BinaryOp.MIN, a, b),
}
sum = _reducer("sum")  # noqa: A001 (TVM's names)
max = _reducer("max")  # noqa: A001
min = _reducer("min")  # noqa: A001
prod = _reducer("prod")
