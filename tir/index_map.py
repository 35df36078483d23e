"""`tir.IndexMap`: a function from N indices to M indices, as `transform_layout` takes it.

    m = IndexMap.from_func(lambda i, j: [j // 4, i, j % 4])
    m.map_indices([vi, vj])        # [vj // 4, vi, vj % 4]
    m.map_shape([8, 12])           # [3, 8, 4]

A Python function (lambda) is accepted wherever an IndexMap is, as in TVM.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from .arith import bound
from .expr import BinaryOp, BinOp, IntImm, PrimExpr, Var, binop, const
from .functor import simplify, substitute


class IndexMap:
    """`final_indices` as expressions of the `initial_indices` variables."""

    AXIS_SEPARATOR = "axis_separator"  # TVM's marker in a mapping's result; dropped here

    def __init__(self, initial_indices: Sequence[Var], final_indices: Sequence[Any],
                 inverse_index_map: Any = None) -> None:
        self.initial_indices = list(initial_indices)
        self.final_indices = [e if isinstance(e, PrimExpr) else const(e, "int32")
                              for e in final_indices]
        self.inverse_index_map = inverse_index_map

    @staticmethod
    def from_func(mapping_function: Callable[..., Any], ndim: int | None = None,
                  inverse_index_map: Any = None, *, index_dtype: str = "int64") -> IndexMap:
        """The map a Python function computes (one parameter per input index, or `*args`
        with `ndim` given); separators in its result are dropped."""
        return IndexMap.from_func_with_separators(mapping_function, ndim, inverse_index_map,
                                                  index_dtype=index_dtype)[0]

    @staticmethod
    def from_func_with_separators(mapping_function: Callable[..., Any], ndim: int | None = None,
                                  inverse_index_map: Any = None, *,
                                  index_dtype: str = "int64") -> tuple[IndexMap, list[int]]:
        names, keyword_only = _param_names(mapping_function, ndim)
        params = [Var(n, index_dtype) for n in names]
        # the last indices go to keyword-only parameters (`lambda *rest, k: ...`), as in TVM
        positional = params[:len(params) - len(keyword_only)]
        named = dict(zip(keyword_only, params[len(positional):]))
        result = mapping_function(*positional, **named)
        if isinstance(result, PrimExpr) or not isinstance(result, (list, tuple)):
            result = [result]
        finals: list[Any] = []
        separators: list[int] = []
        for item in result:
            if isinstance(item, str) and item == IndexMap.AXIS_SEPARATOR:
                separators.append(len(finals))
            else:
                finals.append(item)
        return IndexMap(params, finals, inverse_index_map), separators

    def __eq__(self, other: object) -> bool:
        """Structural: the same outputs of the same inputs, whatever the variables' names."""
        if not isinstance(other, IndexMap):
            return NotImplemented
        if self.ndim != other.ndim or len(self.final_indices) != len(other.final_indices):
            return False
        probe = [Var(f"_probe{k}", v.dtype) for k, v in enumerate(self.initial_indices)]
        return repr(self.map_indices(probe)) == repr(other.map_indices(probe))

    def __hash__(self) -> int:
        return hash((self.ndim, len(self.final_indices)))

    @property
    def ndim(self) -> int:
        return len(self.initial_indices)

    def map_indices(self, indices: Sequence[Any]) -> list[PrimExpr]:
        if len(indices) != self.ndim:
            raise ValueError(f"the index map takes {self.ndim} indices, got {len(indices)}")
        vmap = {v: (i if isinstance(i, PrimExpr) else const(i, v.dtype))
                for v, i in zip(self.initial_indices, indices)}
        return [simplify(substitute(e, vmap)) for e in self.final_indices]

    def map_shape(self, shape: Sequence[Any]) -> list[PrimExpr]:
        """The extent of each output index when input index d ranges over [0, shape[d])."""
        if len(shape) != self.ndim:
            raise ValueError(f"the index map takes {self.ndim} indices, got a shape of "
                             f"{len(shape)} dims")
        ranges = {}
        dims = [simplify(d if isinstance(d, PrimExpr) else const(d, "int64")) for d in shape]
        if not all(isinstance(d, IntImm) for d in dims):
            return self._map_symbolic_shape(dims)
        for v, dim in zip(self.initial_indices, dims):
            ranges[v] = (IntImm(v.dtype, 0), dim.value)
        out = []
        for e in self.final_indices:
            e = simplify(e)
            if isinstance(e, BinOp) and e.op is BinaryOp.FLOORMOD and isinstance(e.b, IntImm) \
                    and e.b.value > 0 and bound(e.a, ranges) is not None:
                # as TVM's iter maps split an index: `x % c` spans c values, padded when x
                # sweeps fewer (`i % 16` over 14 elements is a dim of 16)
                out.append(IntImm(e.dtype, e.b.value))
                continue
            window = bound(e, ranges)
            if window is None:
                raise ValueError(f"cannot bound the output index {e} of the index map")
            lo, ext = window
            lo = simplify(lo)
            if not isinstance(lo, IntImm) or lo.value != 0:
                raise ValueError(f"output index {e} of the index map does not start at 0")
            out.append(IntImm(e.dtype, ext))  # an output dim has its index's dtype
        return out

    def _map_symbolic_shape(self, dims: list[PrimExpr]) -> list[PrimExpr]:
        """Output extents when some input dim is symbolic, for outputs `i`, `i // c` and
        `i % c` (c a positive constant): n, ceil(n / c) written as TVM does,
        `(n - n % -c) // c`, and c."""
        extent = dict(zip(self.initial_indices, dims))
        out: list[PrimExpr] = []
        for e in self.final_indices:
            if isinstance(e, Var) and e in extent:
                out.append(extent[e])
                continue
            if isinstance(e, BinOp) and e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD) and \
                    isinstance(e.a, Var) and e.a in extent and isinstance(e.b, IntImm) and \
                    e.b.value > 0:
                n, c = extent[e.a], e.b.value
                if e.op is BinaryOp.FLOORMOD:
                    out.append(IntImm(n.dtype, c))
                    continue
                rest = binop(BinaryOp.FLOORMOD, n, IntImm(n.dtype, -c))
                out.append(binop(BinaryOp.FLOORDIV, binop(BinaryOp.SUB, n, rest),
                                 IntImm(n.dtype, c)))
                continue
            raise ValueError(f"map_shape of symbolic dims {dims} takes output indices i, "
                             f"i // c and i % c only, not {e}")
        return out

    def trace_text(self) -> str:
        """The map as the Python lambda a printed trace holds (TVM prints the same form)."""
        from ..script.printer.common import ExprPrinter  # the printer sits above tir

        expr = ExprPrinter(lambda v: v.name)
        args = ", ".join(v.name for v in self.initial_indices)
        outs = "".join(f"{expr(e)}, " for e in self.final_indices).rstrip(" ")
        return f"lambda {args}: ({outs})"

    def __repr__(self) -> str:
        return f"IndexMap({self.initial_indices} -> {self.final_indices})"


def _param_names(fn: Callable[..., Any], ndim: int | None) -> tuple[list[str], list[str]]:
    """The names of all the map's index variables, in order, and which of the last ones are
    keyword-only parameters."""
    params = list(inspect.signature(fn).parameters.values())
    keyword_only = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    names: list[str] = []
    for p in params:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            if ndim is None:
                raise ValueError("an index map written with *args needs ndim=")
            names += [f"i{k}" for k in range(ndim - len(names) - len(keyword_only))]
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                        inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return names + keyword_only, keyword_only


def as_index_map(value: Any, ndim: int | None = None, index_dtype: str = "int32") -> IndexMap:
    """An IndexMap from an IndexMap or a Python function (whose index variables get
    `index_dtype`, the dtype of the block iter vars it will be applied to)."""
    if isinstance(value, IndexMap):
        return value
    if callable(value):
        return IndexMap.from_func(value, ndim, index_dtype=index_dtype)
    raise TypeError(f"expected an IndexMap or a function of the indices, got "
                    f"{type(value).__name__}")
