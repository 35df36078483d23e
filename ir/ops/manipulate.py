"""Shape-changing operators: matmul, permute_dims, reshape, flatten, concat, split, expand_dims,
squeeze, broadcast_to, strided_slice, take, and the creators zeros / ones / full."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from .base import (
    INJECTIVE, OUT_EWISE_FUSABLE, as_expr, as_int, broadcast, call, dim, fmt, norm_axis,
    op_error, out_tensor, prod, register, same_dim, scalar_const, shape_expr, tensor_arg,
)


def _shape_arg(c: rx.Call, i: int, name: str) -> tuple[tx.PrimExpr, ...]:
    s = c.args[i]
    if isinstance(s, rx.ShapeExpr):
        return s.values
    sinfo = s.struct_info
    if isinstance(sinfo, si.ShapeStructInfo) and sinfo.values is not None:
        return sinfo.values
    raise op_error(name, "the shape must be known (a tuple of ints or dims, or R.shape(...))")


# -- matmul ---------------------------------------------------------------------------------------


def _infer_matmul(c: rx.Call) -> si.StructInfo:
    a, b = tensor_arg("relax.matmul", c, 0, "x1"), tensor_arg("relax.matmul", c, 1, "x2")
    dtype = c.attr("out_dtype") or a.dtype or b.dtype
    if a.dtype and b.dtype and a.dtype != b.dtype and not c.attr("out_dtype"):
        raise op_error("relax.matmul", f"x1 and x2 must have the same dtype, got {a.dtype} and "
                                       f"{b.dtype}")
    if a.shape is None or b.shape is None:
        return si.TensorStructInfo(None, dtype, -1)
    if not a.shape or not b.shape:
        raise op_error("relax.matmul", "operands must have at least one dimension")
    sa = a.shape if len(a.shape) > 1 else (tx.const(1, "int64"),) + a.shape
    sb = b.shape if len(b.shape) > 1 else b.shape + (tx.const(1, "int64"),)
    if same_dim(sa[-1], sb[-2]) is False:
        raise op_error("relax.matmul", f"reduction dims differ: x1 has shape {fmt(a.shape)} and "
                                       f"x2 has shape {fmt(b.shape)} ({fmt(sa[-1:])} vs "
                                       f"{fmt(sb[-2:-1])})")
    batch = broadcast("relax.matmul", sa[:-2], sb[:-2])
    if batch is None:
        return si.TensorStructInfo(None, dtype, max(len(sa), len(sb)))
    out = batch + ((sa[-2],) if len(a.shape) > 1 else ()) + ((sb[-1],) if len(b.shape) > 1
                                                            else ())
    return out_tensor(out, dtype)


def matmul(x1: Any, x2: Any, out_dtype: str | None = None) -> rx.Call:
    out_dtype = None if str(out_dtype) == "void" else out_dtype  # TVM prints "void" for "unset"
    return call("relax.matmul", (x1, x2), **({"out_dtype": out_dtype} if out_dtype else {}))


# -- layout ---------------------------------------------------------------------------------------


def _infer_permute(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.permute_dims", c, 0, "the input")
    axes = c.attr("axes")
    if x.shape is None:
        return x
    n = len(x.shape)
    axes = tuple(range(n))[::-1] if axes is None else tuple(
        norm_axis("relax.permute_dims", a, n) for a in axes)
    if sorted(axes) != list(range(n)):
        raise op_error("relax.permute_dims", f"axes {axes} are not a permutation of "
                                             f"0..{n - 1}")
    return out_tensor(tuple(x.shape[a] for a in axes), x.dtype)


def permute_dims(x: Any, axes: Any = None) -> rx.Call:
    return call("relax.permute_dims", (x,), axes=None if axes is None else tuple(axes))


def _infer_reshape(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.reshape", c, 0, "the input")
    target = c.args[1].struct_info
    if isinstance(target, si.ShapeStructInfo) and target.values is None and \
            not isinstance(c.args[1], rx.ShapeExpr):  # a shape computed at run time
        return si.TensorStructInfo(None, x.dtype, target.ndim)
    new = list(_shape_arg(c, 1, "relax.reshape"))
    holes = [i for i, d in enumerate(new) if as_int(d) == -1]
    if len(holes) > 1:
        raise op_error("relax.reshape", "at most one dimension may be -1")
    if x.shape is None:
        if holes:
            raise op_error("relax.reshape", "-1 needs the input shape to be known")
        return out_tensor(tuple(new), x.dtype)
    total = prod(x.shape)
    if holes:
        known = prod(d for i, d in enumerate(new) if i != holes[0])
        new[holes[0]] = total // known if as_int(known) != 1 else total
    if same_dim(total, prod(new)) is False:
        raise op_error("relax.reshape", f"cannot reshape {fmt(x.shape)} ({as_int(total)} "
                                        f"elements) to {fmt(new)}")
    return out_tensor(tuple(new), x.dtype)


def reshape(x: Any, shape: Any) -> rx.Call:
    return call("relax.reshape", (x, _as_shape(shape)))


def _as_shape(shape: Any) -> rx.Expr:
    if isinstance(shape, rx.Expr):
        return shape
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    return shape_expr(tuple(dim(d) for d in items))


def _infer_flatten(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.flatten", c, 0, "the input")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, 1)
    return out_tensor((prod(x.shape),), x.dtype)


def flatten(x: Any) -> rx.Call:
    return call("relax.flatten", (x,))


def _infer_expand_dims(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.expand_dims", c, 0, "the input")
    if x.shape is None:
        return x
    n = len(x.shape) + len(c.attr("axis"))
    axes = sorted(norm_axis("relax.expand_dims", a, n) for a in c.attr("axis"))
    dims = iter(x.shape)
    return out_tensor(tuple(dim(1) if i in axes else next(dims) for i in range(n)), x.dtype)


def expand_dims(x: Any, axis: Any) -> rx.Call:
    return call("relax.expand_dims", (x,), axis=(axis,) if isinstance(axis, int) else tuple(axis))


def _infer_squeeze(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.squeeze", c, 0, "the input")
    if x.shape is None:
        return x
    axis = c.attr("axis")
    n = len(x.shape)
    if axis is None:
        drop = {i for i, d in enumerate(x.shape) if as_int(d) == 1}
    else:
        # as TVM 0.27 (and torch): a named axis whose extent is known and not 1 stays
        drop = {i for i in (norm_axis("relax.squeeze", a, n) for a in axis)
                if as_int(x.shape[i]) in (1, None)}
    return out_tensor(tuple(d for i, d in enumerate(x.shape) if i not in drop), x.dtype)


def squeeze(x: Any, axis: Any = None) -> rx.Call:
    ax = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return call("relax.squeeze", (x,), axis=ax)


def _infer_broadcast_to(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.broadcast_to", c, 0, "the input")
    target = _shape_arg(c, 1, "relax.broadcast_to")
    if x.shape is not None:
        if len(x.shape) > len(target):
            raise op_error("relax.broadcast_to", f"cannot broadcast {fmt(x.shape)} to the "
                                                 f"lower-rank {fmt(target)}")
        got = broadcast("relax.broadcast_to", x.shape, target)
        if got is not None and any(same_dim(g, t) is False for g, t in zip(got, target)):
            raise op_error("relax.broadcast_to", f"cannot broadcast {fmt(x.shape)} to "
                                                 f"{fmt(target)}")
    return out_tensor(target, x.dtype)


def broadcast_to(x: Any, shape: Any) -> rx.Call:
    return call("relax.broadcast_to", (x, _as_shape(shape)))


# -- joining and slicing --------------------------------------------------------------------------


def _tuple_fields(name: str, c: rx.Call) -> list[si.TensorStructInfo]:
    sinfo = c.args[0].struct_info
    if not isinstance(sinfo, si.TupleStructInfo) or not sinfo.fields:
        raise op_error(name, "takes a non-empty tuple of tensors")
    for i, f in enumerate(sinfo.fields):
        if not isinstance(f, si.TensorStructInfo):
            raise op_error(name, f"tuple field {i} is not a tensor")
    return list(sinfo.fields)  # type: ignore[arg-type]


def _infer_concat(c: rx.Call) -> si.StructInfo:
    ts = _tuple_fields("relax.concat", c)
    dtype = ts[0].dtype
    if any(t.shape is None for t in ts):
        return si.TensorStructInfo(None, dtype, ts[0].ndim)
    n = len(ts[0].shape)
    if c.attr("axis") is None:  # as TVM: no axis joins 1-D tensors end to end
        if any(len(t.shape) != 1 for t in ts):
            raise op_error("relax.concat", "without an axis takes 1-D tensors only")
        axis = 0
    else:
        axis = norm_axis("relax.concat", c.attr("axis"), n)
    for i, t in enumerate(ts[1:], 1):
        if len(t.shape) != n or t.dtype != dtype:
            raise op_error("relax.concat", f"tensor {i} is {fmt(t.shape)} {t.dtype}, tensor 0 "
                                           f"is {fmt(ts[0].shape)} {dtype}")
        for k in range(n):
            if k != axis and same_dim(t.shape[k], ts[0].shape[k]) is False:
                raise op_error("relax.concat", f"tensor {i} has shape {fmt(t.shape)}, which "
                                               f"differs from {fmt(ts[0].shape)} off axis {axis}")
    out = list(ts[0].shape)
    out[axis] = sum((t.shape[axis] for t in ts[1:]), ts[0].shape[axis])
    return out_tensor(tuple(out), dtype)


def concat(tensors: Any, axis: int = 0) -> rx.Call:
    return call("relax.concat", (as_expr(tuple(tensors)) if isinstance(tensors, (list, tuple))
                                 else tensors,), axis=axis)


def split_bounds(name: str, extent: tx.PrimExpr, ios: Any) -> list[tuple[Any, Any]]:
    """(begin, end) of each piece; sections need a static extent divisible by them."""
    if isinstance(ios, int):
        n = as_int(extent)
        if n is None:
            raise op_error(name, f"cannot split an axis of unknown elements into {ios} "
                                 "sections")
        step = -(-n // ios)  # NOTE: as TVM, uneven sections are ceil(n / k), the last shorter
        return [(min(i * step, n), min((i + 1) * step, n)) for i in range(ios)]
    n = as_int(extent)
    if n is not None and all(isinstance(i, int) for i in ios):
        # as TVM: static indices are clamped into [0, n] and a piece never has negative size
        cuts = [0, *(min(max(i, 0), n) for i in ios), n]
        return [(lo, max(lo, hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]
    cuts = [0, *ios, extent]
    return list(zip(cuts[:-1], cuts[1:]))


def _infer_split(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.split", c, 0, "the input")
    if x.shape is None:
        raise op_error("relax.split", "needs the input shape to be known")
    axis = norm_axis("relax.split", c.attr("axis"), len(x.shape))
    fields = []
    for lo, hi in split_bounds("relax.split", x.shape[axis], c.attr("indices_or_sections")):
        shape = list(x.shape)
        shape[axis] = _piece_extent(dim(hi) - lo)
        fields.append(out_tensor(tuple(shape), x.dtype))
    return si.TupleStructInfo(tuple(fields))


def _piece_extent(e: Any) -> Any:
    """`(640 + M) - 640` is `M`, as TVM's analyzer finds; what does not cancel to one variable
    or constant stays as written."""
    if not isinstance(e, tx.PrimExpr) or isinstance(e, (tx.Var, tx.IntImm)):
        return e
    from ...tir.analyzer import Analyzer

    s = Analyzer().simplify(e)
    return s if isinstance(s, (tx.Var, tx.IntImm)) else e


def _ints(values: Any) -> tuple[Any, ...]:
    """Constant indices as Python ints (TVM takes `T.int64(640)` or `width * 2` alike); a
    symbolic one stays an expression."""
    out = []
    for v in values:
        if isinstance(v, rx.PrimValue):  # `(R.prim_value(3),)`, as TVM prints them
            v = v.value
        n = as_int(v) if isinstance(v, tx.PrimExpr) else None
        out.append(v if n is None else n)
    return tuple(out)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> rx.Call:
    if isinstance(indices_or_sections, tx.IntImm):
        indices_or_sections = indices_or_sections.value
    ios = indices_or_sections if isinstance(indices_or_sections, int) else _ints(
        indices_or_sections)
    return call("relax.split", (x,), indices_or_sections=ios, axis=axis)


def slice_spec(c: rx.Call, shape: tuple[Any, ...]) -> list[tuple[Any, Any, int]]:
    """(begin, extent, stride) per axis of a strided_slice, clamped like numpy."""
    spec = [(0, d, 1) for d in shape]
    strides = c.attr("strides") or (1,) * len(c.attr("axes"))
    for a, b, e, s in zip(c.attr("axes"), c.attr("begin"), c.attr("end"), strides):
        a = norm_axis("relax.strided_slice", a, len(shape))
        n = as_int(shape[a])
        b, e = (as_int(v) if as_int(v) is not None else v for v in (dim(b), dim(e)))
        if n is None or not isinstance(b, int) or not isinstance(e, int):
            spec[a] = (b, _symbolic_extent(b, e, s, shape[a]), s)
            continue
        lo, hi, _ = slice(b, e, s).indices(n)
        spec[a] = (lo, max(0, len(range(lo, hi, s))), s)
    return spec


def _symbolic_extent(b: Any, e: Any, s: int, n: tx.PrimExpr) -> tx.PrimExpr:
    """Elements of `b:e:s` on an axis of `n` elements when a bound or `n` is symbolic: the
    bounds are taken as in range (TVM's assume_inbound), so `ceil((e - b) / s)`."""
    if s <= 0 or (isinstance(b, int) and b < 0) or (isinstance(e, int) and e < 0):
        raise op_error("relax.strided_slice", "a symbolic axis or bound takes non-negative "
                                              "begin/end and a positive stride")
    if isinstance(b, int) and isinstance(e, int):
        return tx.const(max(0, -(-(e - b) // s)), "int64")
    span = dim(e) if isinstance(b, int) and b == 0 else dim(e) - dim(b)
    return span if s == 1 else tx.binop(tx.BinaryOp.FLOORDIV, span + (s - 1), dim(s))


def _infer_strided_slice(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.strided_slice", c, 0, "the input")
    if x.shape is None:
        return x
    return out_tensor(tuple(ext for _, ext, _ in slice_spec(c, x.shape)), x.dtype)


def strided_slice(x: Any, axes: Any, begin: Any, end: Any, strides: Any = None,
                  assume_inbound: bool = True) -> rx.Call:
    return call("relax.strided_slice", (x,), axes=_ints(axes), begin=_ints(begin),
                end=_ints(end), strides=None if strides is None else _ints(strides))


def _infer_take(c: rx.Call) -> si.StructInfo:
    x = tensor_arg("relax.take", c, 0, "the input")
    if isinstance(c.args[1].struct_info, si.PrimStructInfo):  # one index: R.prim_value(i)
        idx = si.TensorStructInfo((), c.args[1].struct_info.dtype)
    else:
        idx = tensor_arg("relax.take", c, 1, "indices")
    if idx.dtype and not idx.dtype.startswith(("int", "uint")):
        raise op_error("relax.take", f"indices must be integers, got {idx.dtype}")
    if x.shape is None or idx.shape is None:
        return si.TensorStructInfo(None, x.dtype, -1)
    axis = c.attr("axis")
    if axis is None:
        return out_tensor(idx.shape, x.dtype)
    axis = norm_axis("relax.take", axis, len(x.shape))
    return out_tensor(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)


def take(x: Any, indices: Any, axis: int | None = None, mode: str = "fast") -> rx.Call:
    if isinstance(indices, int) and not isinstance(indices, bool):
        indices = as_expr(tx.const(indices, "int64"))
    if mode not in ("fast", "clip", "wrap", "nan"):
        raise op_error("relax.take", f"mode must be fast, clip, wrap or nan, got {mode!r}")
    extra = {} if mode == "fast" else {"mode": str(mode)}  # NOTE: "fast" prints as before
    return call("relax.take", (x, indices), axis=axis, **extra)


# -- creation -------------------------------------------------------------------------------------


def _infer_full(c: rx.Call) -> si.StructInfo:
    return out_tensor(_shape_arg(c, 0, "relax.full"), c.attr("dtype"))


def full(shape: Any, fill_value: Any, dtype: str | None = None) -> rx.Call:
    if isinstance(fill_value, (int, float)):
        fill_value = scalar_const(fill_value, dtype or "float32")
    dt = dtype or getattr(fill_value.struct_info, "dtype", "") or "float32"
    return call("relax.full", (_as_shape(shape), fill_value), dtype=str(dt))


def zeros(shape: Any, dtype: str = "float32") -> rx.Call:
    return call("relax.zeros", (_as_shape(shape),), dtype=str(dtype))


def ones(shape: Any, dtype: str = "float32") -> rx.Call:
    return call("relax.ones", (_as_shape(shape),), dtype=str(dtype))


register("relax.matmul", _infer_matmul, matmul, OUT_EWISE_FUSABLE)
register("relax.permute_dims", _infer_permute, permute_dims, INJECTIVE)
register("relax.reshape", _infer_reshape, reshape, INJECTIVE)
# a reshape to a shape known only at run time stays unlegalized: the VM makes the view
register_op("relax.reshape", vm_builtin="vm.builtin.reshape")
register("relax.flatten", _infer_flatten, flatten, INJECTIVE)
register("relax.expand_dims", _infer_expand_dims, expand_dims, INJECTIVE)
register("relax.squeeze", _infer_squeeze, squeeze, INJECTIVE)
register("relax.broadcast_to", _infer_broadcast_to, broadcast_to, INJECTIVE)
register("relax.concat", _infer_concat, concat, INJECTIVE)
register("relax.split", _infer_split, split, INJECTIVE)
register("relax.strided_slice", _infer_strided_slice, strided_slice, INJECTIVE)
register("relax.take", _infer_take, take, INJECTIVE)
register("relax.full", _infer_full, full, INJECTIVE)
register("relax.zeros", _infer_full, zeros, INJECTIVE)
register("relax.ones", _infer_full, ones, INJECTIVE)
