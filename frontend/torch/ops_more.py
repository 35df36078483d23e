"""Converters of creation, flipping, variance and bucketing ATen ops (TVM 0.27's forms)."""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...ir.ops.base import as_expr, scalar_const
from .ops_tensor import cast, make, out_dtype
from .registry import converts


@converts("arange.start_step", "arange.start", "arange.default")
def _arange(node: Any, imp: Any) -> rx.Call:
    args = list(imp.retrieve_args(node))
    if len(args) == 1:  # arange(end)
        args = [0] + args
    start, end, step = (args + [1])[:3]
    return make("arange", start, end, step, dtype=out_dtype(node))


@converts("full_like.default")
def _full_like(node: Any, imp: Any) -> rx.Call:
    x, fill = imp.retrieve_args(node)[:2]
    if not isinstance(fill, rx.Expr):  # as TVM: an int fill is an int32 constant
        fill = scalar_const(fill, "int32" if type(fill) is int else out_dtype(node))
    return make("full_like", x, fill)


@converts("flip.default")
def _flip(node: Any, imp: Any) -> Any:
    x, dims = imp.retrieve_args(node)
    for axis in dims:  # relax flips one axis per call
        x = imp.emit(make("flip", x, axis=axis))
    return x


@converts("var.correction", "var.dim", "var.default")
def _var(node: Any, imp: Any) -> Any:
    a = imp.named_args(node)
    x, dims = a["self"], a.get("dim")
    axis = None if dims is None or dims == [] else list(dims)
    correction = a.get("correction")
    if correction is None:
        correction = 1 if a.get("unbiased", True) else 0
    out = imp.emit(make("variance", x, axis=axis, keepdims=bool(a.get("keepdim", False))))
    if correction == 0:
        return out
    shape = x.struct_info.shape
    count = 1
    for d in (range(len(shape)) if axis is None else axis):
        count *= int(shape[d])
    factor = count / (count - correction)  # torch's (n - correction) denominator
    return make("multiply", out, scalar_const(factor, out_dtype(node)))


@converts("bucketize.Tensor")
def _bucketize(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("bucketize", a["self"], a["boundaries"], out_int32=bool(a["out_int32"]),
                right=bool(a["right"]))


@converts("zeros_like.default", "ones_like.default")
def _zeros_ones_like(node: Any, imp: Any) -> rx.Call:
    fill = 0 if node.target.__name__.startswith("zeros") else 1
    # an int32 fill (relax.const's default) that full_like casts to the input's dtype
    return make("full_like", imp.retrieve_args(node)[0], scalar_const(fill, "int32"))


@converts("leaky_relu.default")
def _leaky_relu(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("nn.leakyrelu", a["self"], alpha=float(a["negative_slope"]))


@converts("log1p.default")
def _log1p(node: Any, imp: Any) -> rx.Call:
    x = imp.retrieve_args(node)[0]
    return make("log", imp.emit(make("add", x, scalar_const(1.0, out_dtype(node)))))


_LOGICAL = {"logical_and": "logical_and", "logical_or": "logical_or",
            "logical_xor": "logical_xor", "bitwise_and": "bitwise_and",
            "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "fmod": "mod"}


def _same_dtype_binary(op: str) -> Any:
    def convert(node: Any, imp: Any) -> rx.Call:
        a, b = imp.retrieve_args(node)[:2]
        if not isinstance(b, rx.Expr):  # a Python scalar: a constant of a's dtype
            b = scalar_const(b, a.struct_info.dtype)
        if op.startswith("logical"):  # torch's logical ops take any dtype as truth values
            a, b = cast(a, "bool"), cast(b, "bool")
        return make(op, a, b)
    return convert


for _aten, _op in _LOGICAL.items():
    converts(*(f"{_aten}.{o}" for o in ("default", "Tensor", "Scalar")))(_same_dtype_binary(_op))


@converts("index_select.default")
def _index_select(node: Any, imp: Any) -> rx.Call:
    x, axis, index = imp.retrieve_args(node)
    return make("take", x, index, axis=axis)


@converts("repeat.default")
def _repeat(node: Any, imp: Any) -> rx.Call:
    x, repeats = imp.retrieve_args(node)
    return make("tile", x, list(repeats))


@converts("gather.default")
def _gather(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("gather_elements", a["self"], a["index"], axis=a["dim"])


@converts("topk.default")
def _topk(node: Any, imp: Any) -> rx.Call:
    a = imp.named_args(node)
    return make("topk", a["self"], k=a["k"], axis=a["dim"], ret_type="both",
                largest=bool(a["largest"]), dtype="int64")


@converts("native_dropout.default")
def _native_dropout(node: Any, imp: Any) -> Any:
    # eval mode: the input unchanged; the mask (for training) is never computed
    return (imp.retrieve_args(node)[0], None)


@converts("scalar_tensor.default")
def _scalar_tensor(node: Any, imp: Any) -> rx.Var:
    return imp.emit(scalar_const(imp.retrieve_args(node)[0], out_dtype(node)))


@converts("empty_permuted.default", "empty.memory_format", "empty_like.default")
def _empty(node: Any, imp: Any) -> rx.Call:
    # uninitialized memory in torch: zeros here, as TVM does
    return make("zeros", imp.shape_of(node), out_dtype(node))


def _pair_tuple(imp: Any, first: Any, second: Any) -> rx.Var:
    """Two results of an op bound as one relax tuple (`getitem` then picks from it)."""
    return imp.emit(as_expr((first, second)))


@converts("sort.default", "sort.stable")
def _sort(node: Any, imp: Any) -> rx.Var:
    a = imp.named_args(node)
    order = imp.emit(make("argsort", a["self"], axis=a["dim"], descending=bool(a["descending"]),
                          dtype="int64"))
    values = imp.emit(make("gather_elements", a["self"], order, axis=a["dim"]))
    return _pair_tuple(imp, values, order)


@converts("max.dim", "min.dim")
def _max_dim(node: Any, imp: Any) -> rx.Var:
    a = imp.named_args(node)
    largest = node.target.__name__.startswith("max")
    both = imp.emit(make("topk", a["self"], k=1, axis=a["dim"], ret_type="both",
                         largest=largest, dtype="int64"))
    parts = []
    for i in (0, 1):  # values, then indices: each picked and (without keepdim) squeezed
        part = imp.emit(rx.TupleGetItem(both, i, both.struct_info.fields[i]))
        if not a["keepdim"]:
            part = imp.emit(make("squeeze", part, axis=[a["dim"]]))
        parts.append(part)
    return _pair_tuple(imp, *parts)
