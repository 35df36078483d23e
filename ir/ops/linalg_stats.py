"""einsum, outer, linear; variance / std; meshgrid; collapse_sum_to / collapse_sum_like;
masked_fill. `linear` and `masked_fill` build other operators' calls, as TVM's do."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import (
    INJECTIVE, OUT_EWISE_FUSABLE, REDUCE, as_expr, call, fmt, op_error, out_tensor,
    register, same_dim, tensor_arg,
)
from .reduce_nn import _infer_reduce, _reduce_maker


def parse_subscripts(name: str, subscripts: str, n_operands: int
                     ) -> tuple[list[str], str]:
    """`"ij,jk->ik"` as (["ij", "jk"], "ik"); without `->` the output is the letters used
    once, sorted (numpy's rule)."""
    text = subscripts.replace(" ", "")
    if "." in text:
        raise op_error(name, "ellipsis ('...') in einsum subscripts is not supported")
    lhs, arrow, out = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != n_operands:
        raise op_error(name, f"subscripts {subscripts!r} name {len(inputs)} operands, got "
                             f"{n_operands}")
    letters = "".join(inputs)
    if not arrow:
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for c in letters + out:
        if not c.isalpha():
            raise op_error(name, f"subscript {c!r} is not a letter")
    for c in out:
        if c not in letters:
            raise op_error(name, f"output subscript {c!r} names no input axis")
    return inputs, out


def _is_one(d: tx.PrimExpr) -> bool:
    return isinstance(d, tx.IntImm) and d.value == 1


def _infer_einsum(c: rx.Call) -> si.StructInfo:
    name = "relax.einsum"
    items = c.args[0].struct_info
    if not isinstance(items, si.TupleStructInfo):
        raise op_error(name, "takes a tuple of tensors")
    ts = [f for f in items.fields if isinstance(f, si.TensorStructInfo)]
    if len(ts) != len(items.fields):
        raise op_error(name, "every operand must be a tensor")
    inputs, out = parse_subscripts(name, c.attr("subscripts"), len(ts))
    dtype = ts[0].dtype
    sizes: dict[str, tx.PrimExpr] = {}
    for k, (t, sub) in enumerate(zip(ts, inputs)):
        if t.shape is None:
            return si.TensorStructInfo(None, dtype, len(out))
        if len(t.shape) != len(sub):
            raise op_error(name, f"operand {k} has rank {len(t.shape)} but subscripts {sub!r}")
        for letter, d in zip(sub, t.shape):
            if letter in sizes and _is_one(d):
                continue  # broadcast, as TVM's einsum does
            if letter in sizes and not _is_one(sizes[letter]) and \
                    same_dim(sizes[letter], d) is False:
                raise op_error(name, f"axis {letter!r} is {fmt((sizes[letter],))[1:-2]} in one "
                                     f"operand and {fmt((d,))[1:-2]} in operand {k}")
            sizes[letter] = d if letter not in sizes or _is_one(sizes[letter]) else sizes[letter]
    return out_tensor(tuple(sizes[letter] for letter in out), dtype)


def einsum(operands: Any, subscripts: str) -> rx.Call:
    ops = as_expr(list(operands)) if isinstance(operands, (list, tuple)) else operands
    return call("relax.einsum", (ops,), subscripts=str(subscripts))


def _infer_outer(c: rx.Call) -> si.StructInfo:
    a, b = tensor_arg("relax.outer", c, 0, "x1"), tensor_arg("relax.outer", c, 1, "x2")
    for t, what in ((a, "x1"), (b, "x2")):
        if t.ndim not in (-1, 1):
            raise op_error("relax.outer", f"{what} must be 1-d, got rank {t.ndim}")
    if a.dtype and b.dtype and a.dtype != b.dtype:
        raise op_error("relax.outer", f"x1 and x2 must have one dtype, got {a.dtype} and "
                                      f"{b.dtype}")
    if a.shape is None or b.shape is None:
        return si.TensorStructInfo(None, a.dtype, 2)
    return out_tensor((a.shape[0], b.shape[0]), a.dtype)


def outer(x1: Any, x2: Any) -> rx.Call:
    return call("relax.outer", (x1, x2))


def linear(data: Any, weight: Any, bias: Any = None, out_dtype: Any = None) -> rx.Call:
    """`data @ weight.T + bias`, as TVM's `relax.op.linear` builds it."""
    from .elementwise import _binary_maker
    from .manipulate import matmul, permute_dims

    out = matmul(data, permute_dims(weight), out_dtype=out_dtype)
    return out if bias is None else _binary_maker("relax.add")(out, bias)


def masked_fill(x: Any, mask: Any, value: Any) -> rx.Call:
    """`where(mask, value, x)` with `value` a scalar (TVM builds it the same way)."""
    from .creation import full_like
    from .elementwise import where

    return where(mask, full_like(x, value), x)


def _infer_meshgrid(c: rx.Call) -> si.StructInfo:
    items = c.args[0].struct_info
    if not isinstance(items, si.TupleStructInfo) or not items.fields:
        raise op_error("relax.meshgrid", "takes a non-empty tuple of 1-d tensors")
    if c.attr("indexing") not in ("ij", "xy"):
        raise op_error("relax.meshgrid", f"indexing must be 'ij' or 'xy', got "
                                         f"{c.attr('indexing')!r}")
    dims = []
    for k, t in enumerate(items.fields):
        if not isinstance(t, si.TensorStructInfo) or t.ndim not in (-1, 1):
            raise op_error("relax.meshgrid", f"item {k} must be a 1-d tensor")
        if t.shape is None:
            n = len(items.fields)
            return si.TupleStructInfo(tuple(si.TensorStructInfo(None, f.dtype, n)
                                            for f in items.fields))
        dims.append(t.shape[0])
    if c.attr("indexing") == "xy" and len(dims) > 1:
        dims[0], dims[1] = dims[1], dims[0]
    return si.TupleStructInfo(tuple(out_tensor(tuple(dims), f.dtype) for f in items.fields))


def meshgrid(tensors: Any, indexing: str = "ij") -> rx.Call:
    ts = as_expr(list(tensors)) if isinstance(tensors, (list, tuple)) else tensors
    return call("relax.meshgrid", (ts,), indexing=str(indexing or "ij"))


def _infer_collapse(c: rx.Call) -> si.StructInfo:
    name = c.op.name  # type: ignore[attr-defined]
    x = tensor_arg(name, c, 0, "data")
    if name == "relax.collapse_sum_like":
        target = tensor_arg(name, c, 1, "collapse_target").shape
    else:
        from .manipulate import _shape_arg

        target = _shape_arg(c, 1, name)
    if target is None:
        return si.TensorStructInfo(None, x.dtype, -1)
    if x.shape is not None:
        if len(target) > len(x.shape):
            raise op_error(name, f"cannot collapse {fmt(x.shape)} to the longer {fmt(target)}")
        for t, d in zip(reversed(target), reversed(x.shape)):
            if same_dim(t, d) is False and same_dim(t, tx.const(1, "int64")) is False:
                raise op_error(name, f"{fmt(x.shape)} does not broadcast from {fmt(target)}")
    return out_tensor(tuple(target), x.dtype)


def collapse_sum_like(data: Any, collapse_target: Any) -> rx.Call:
    return call("relax.collapse_sum_like", (data, collapse_target))


def collapse_sum_to(data: Any, shape: Any) -> rx.Call:
    from .manipulate import _as_shape

    return call("relax.collapse_sum_to", (data, _as_shape(shape)))


register("relax.einsum", _infer_einsum, einsum, OUT_EWISE_FUSABLE)
register("relax.outer", _infer_outer, outer, INJECTIVE)
register("relax.variance", _infer_reduce, _reduce_maker("relax.variance"), REDUCE)
register("relax.std", _infer_reduce, _reduce_maker("relax.std"), REDUCE)
register("relax.meshgrid", _infer_meshgrid, meshgrid, INJECTIVE)
register("relax.collapse_sum_like", _infer_collapse, collapse_sum_like, REDUCE)
register("relax.collapse_sum_to", _infer_collapse, collapse_sum_to, REDUCE)
