"""Elementwise, broadcast, injective and reduction computes on te tensors (TVM's topi names).

Every function takes and returns `te.Tensor`s; Python numbers beside tensors take their dtype.
"""

from __future__ import annotations

import builtins as _bi
from typing import Any, Callable

from .. import te
from ..tir import expr as tx
from ..tir.functor import simplify
from .reshape_index import ravel_plain, unravel_plain
from .schedule_mode import scheduled

Fn = Callable[..., tx.PrimExpr]


def _zero(dtype: str = "int64") -> tx.PrimExpr:
    return tx.const(0, dtype)


def _is_one(d: tx.PrimExpr) -> bool:
    d = simplify(d)
    return isinstance(d, tx.IntImm) and d.value == 1


def broadcast_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[tx.PrimExpr, ...]:
    n = _bi.max(len(a), len(b))
    one = tx.const(1, "int64")
    a = (one,) * (n - len(a)) + tuple(a)
    b = (one,) * (n - len(b)) + tuple(b)
    return tuple(y if _is_one(x) else x for x, y in zip(a, b))


def bcast_index(t: te.Tensor, idx: tuple[tx.PrimExpr, ...],
                out_shape: tuple[Any, ...] | None = None) -> tx.PrimExpr:
    """`t` read at the broadcast index `idx` (trailing dims aligned, size-1 dims read at 0).
    Given the output's shape, a size-1 dim that the output keeps at 1 reads at the index, as
    TVM's InputIndexFromBroadcast does (only a dim that is really broadcast reads at 0)."""
    lead = len(idx) - t.ndim
    outs = out_shape[lead:] if out_shape is not None else (None,) * t.ndim
    return t[tuple(_zero() if _is_one(d) and not (o is not None and _is_one(o)) else i
                   for d, i, o in zip(t.shape, idx[lead:], outs))]


def _operand(x: Any, dtype: str) -> Any:
    if isinstance(x, te.Tensor):
        return x
    if isinstance(x, tx.PrimExpr) and x.dtype != dtype:  # TVM converts a scalar operand
        return tx.const(x.value, dtype) if isinstance(x, tx.IntImm) else tx.Cast(dtype, x)
    return tx.const(x, dtype)


def binary(name: str, fn: Fn) -> Callable[[Any, Any], te.Tensor]:
    def op(a: Any, b: Any) -> te.Tensor:
        dtype = (a if isinstance(a, te.Tensor) else b).dtype
        a, b = _operand(a, dtype), _operand(b, dtype)
        sa = a.shape if isinstance(a, te.Tensor) else ()
        sb = b.shape if isinstance(b, te.Tensor) else ()
        shape = broadcast_shape(sa, sb)

        def body(*idx: tx.PrimExpr) -> tx.PrimExpr:
            va = bcast_index(a, idx, shape) if isinstance(a, te.Tensor) else a
            vb = bcast_index(b, idx, shape) if isinstance(b, te.Tensor) else b
            return fn(va, vb)
        return te.compute(shape, body, name=f"T_{name}")
    op.__name__ = name
    return op


def unary(name: str, fn: Fn) -> Callable[[te.Tensor], te.Tensor]:
    def op(x: te.Tensor) -> te.Tensor:
        return te.compute(x.shape, lambda *i: fn(x[i]), name=f"T_{name}")
    op.__name__ = name
    return op


def _b(op: tx.BinaryOp) -> Fn:
    return lambda a, b: tx.binop(op, a, b)


def _div(a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
    if a.dtype.startswith("float"):
        return tx.binop(tx.BinaryOp.DIV, a, b)
    return tx.binop(tx.BinaryOp.FLOORDIV, a, b)  # TVM's relax.divide on ints floors


def _floor_div(a: tx.PrimExpr, b: tx.PrimExpr) -> tx.PrimExpr:
    if a.dtype.startswith("float"):  # TVM's form for floats: floor(a / b)
        return tx.Call(a.dtype, "tir.floor", (tx.binop(tx.BinaryOp.DIV, a, b),))
    return tx.binop(tx.BinaryOp.FLOORDIV, a, b)


def _call(op: str) -> Fn:
    return lambda x, *rest: tx.Call(x.dtype, f"tir.{op}", (x, *rest))


B = tx.BinaryOp
add = binary("add", _b(B.ADD))
subtract = binary("subtract", _b(B.SUB))
multiply = binary("multiply", _b(B.MUL))
divide = binary("divide", _div)
floor_divide = binary("floor_divide", _floor_div)
floor_mod = binary("floor_mod", _b(B.FLOORMOD))
power = binary("power", lambda a, b: tx.Call(a.dtype, "tir.pow", (a, b)))
maximum = binary("maximum", _b(B.MAX))
minimum = binary("minimum", _b(B.MIN))
equal = binary("equal", _b(B.EQ))
not_equal = binary("not_equal", _b(B.NE))
less = binary("less", _b(B.LT))
less_equal = binary("less_equal", _b(B.LE))
greater = binary("greater", lambda a, b: tx.binop(B.LT, b, a))  # TVM writes `b < a`
greater_equal = binary("greater_equal", lambda a, b: tx.binop(B.LE, b, a))
logical_and = binary("logical_and", _b(B.AND))
logical_or = binary("logical_or", _b(B.OR))

exp, log, sqrt, tanh, sigmoid, erf, rsqrt, floor, ceil, round, sin, cos = (
    unary(n, _call(n)) for n in ("exp", "log", "sqrt", "tanh", "sigmoid", "erf", "rsqrt",
                                 "floor", "ceil", "round", "sin", "cos"))
abs = unary("abs", _call("abs"))  # noqa: A001
negative = unary("negative", lambda x: tx.binop(B.SUB, tx.const(0, x.dtype), x))
square = unary("multiply", lambda x: x * x)  # NOTE: TVM's square is x * x, named T_multiply
logical_not = unary("logical_not", lambda x: tx.Not(x))
identity = unary("identity", lambda x: x)


def cast(x: te.Tensor, dtype: str) -> te.Tensor:
    return te.compute(x.shape, lambda *i: tx.Cast(dtype, x[i]) if x.dtype != dtype else x[i],
                      name="T_cast")


def where(cond: te.Tensor, a: te.Tensor, b: te.Tensor) -> te.Tensor:
    shape = broadcast_shape(broadcast_shape(cond.shape, a.shape), b.shape)
    return te.compute(shape, lambda *i: tx.Select(_truth(bcast_index(cond, i, shape)), bcast_index(
        a, i, shape), bcast_index(b, i, shape)), name="T_where")


def _truth(c: tx.PrimExpr) -> tx.PrimExpr:
    """TVM's where tests a boolean condition as `0 < int64(c)` (scheduled kernels: `c`)."""
    if scheduled() or c.dtype != "bool":
        return c
    return tx.binop(B.LT, _zero(), tx.Cast("int64", c))


def full(shape: Any, dtype: str, value: Any) -> te.Tensor:
    v = value if isinstance(value, te.Tensor) else None
    fill = (lambda *i: tx.Cast(dtype, v[()]) if v.dtype != dtype else v[()]) if v is not None \
        else (lambda *i: tx.const(value, dtype))
    return te.compute(shape, fill, name="T_full")


# -- layout ---------------------------------------------------------------------------------------


def transpose(x: te.Tensor, axes: Any = None) -> te.Tensor:
    axes = list(range(x.ndim))[::-1] if axes is None else [a % x.ndim for a in axes]
    inv = [axes.index(k) for k in range(x.ndim)]
    out = te.compute(tuple(x.shape[a] for a in axes),
                     lambda *i: x[tuple(i[inv[k]] for k in range(x.ndim))], name="T_transpose")
    _transpose_tiles(out, inv[-1])
    return out


def _transpose_tiles(out: te.Tensor, a: int) -> None:
    """Square tiles over output axis `a` (the input's contiguous one) and the output's last
    axis, so that both the reads and the writes of a tile stay within a few cache lines (and
    pages) instead of one of them striding through the whole tensor."""
    last = out.ndim - 1
    if a == last:
        return
    exts = [simplify(out.shape[k]) for k in (a, last)]
    if not all(isinstance(e, tx.IntImm) for e in exts):
        return
    tile = next((t for t in (16, 8, 4) if all(e.value % t == 0 for e in exts)), 0)
    if not tile:
        return
    names = [ax.name for ax in out.op.axis]
    order = [f"{n}.o" if k == a else n for k, n in enumerate(names[:-1])]
    # NOTE: the input's contiguous axis innermost measured best (VGG's 4096x25088 weight:
    # 170 ms against 300 ms with the output's contiguous axis innermost, 520 ms untiled)
    order += [f"{names[last]}.o", f"{names[last]}.i", f"{names[a]}.i"]
    te.loop_nest(out, order, {names[a]: tile, names[last]: tile})


def unravel(flat: tx.PrimExpr, shape: tuple[tx.PrimExpr, ...]) -> tuple[tx.PrimExpr, ...]:
    out: list[tx.PrimExpr] = []
    for d in reversed(shape):
        out.append(flat if len(out) == len(shape) - 1 else tx.binop(B.FLOORMOD, flat, d))
        flat = tx.binop(B.FLOORDIV, flat, d)
    return tuple(reversed(out))


def ravel(idx: tuple[tx.PrimExpr, ...], shape: tuple[tx.PrimExpr, ...]) -> tx.PrimExpr:
    flat: tx.PrimExpr = _zero()
    for i, d in zip(idx, shape):
        flat = flat * d + i
    return simplify(flat)


def reshape(x: te.Tensor, shape: Any) -> te.Tensor:
    dims = tuple(tx.const(d, "int64") if isinstance(d, int) else d for d in shape)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        if not x.ndim:
            return x[()]
        if not scheduled():
            idx = unravel_plain(ravel_plain(i, dims), x.shape)
            if idx is not None:
                return x[idx]
        return x[unravel(ravel(i, dims), x.shape)]
    return te.compute(dims, body, name="T_reshape")


def expand_dims(x: te.Tensor, shape: Any) -> te.Tensor:
    return reshape(x, shape)


def broadcast_to(x: te.Tensor, shape: Any) -> te.Tensor:
    dims = tuple(tx.const(d, "int64") if isinstance(d, int) else d for d in shape)
    return te.compute(dims, lambda *i: bcast_index(x, i, dims), name="T_broadcast_to")


def concatenate(xs: list[te.Tensor], axis: int = 0) -> te.Tensor:
    axis %= xs[0].ndim
    starts, acc = [], _zero()
    for t in xs:
        starts.append(acc)
        acc = simplify(acc + t.shape[axis])
    shape = tuple(acc if k == axis else d for k, d in enumerate(xs[0].shape))

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        if not scheduled():
            return _concat_plain(xs, i, axis)
        value = _read_shifted(xs[-1], i, axis, starts[-1])
        for t, s in zip(reversed(xs[:-1]), reversed(starts[:-1])):
            end = simplify(s + t.shape[axis])
            value = te.if_then_else(i[axis] < end, _read_shifted(t, i, axis, s), value)
        return value
    return te.compute(shape, body, name="T_concat")


def _concat_plain(xs: list[te.Tensor], i: tuple[Any, ...], axis: int) -> tx.PrimExpr:
    """TVM's form: from the last input down, `start <= i` (static starts) or `0 <= i - d0 -
    d1 ...` (symbolic) selects an input read at `i - start`; the first reads at `i`."""
    offsets: list[tx.PrimExpr] = [i[axis]]
    start: int | None = 0
    for t in xs[:-1]:
        d = simplify(t.shape[axis])
        start = start + d.value if start is not None and isinstance(d, tx.IntImm) else None
        offsets.append(i[axis] - tx.const(start, "int64") if start is not None
                       else offsets[-1] - d)
    value = xs[0][i]
    for k in range(1, len(xs)):
        off = offsets[k]
        idx = tuple(off if a == axis else v for a, v in enumerate(i))
        cond = tx.binop(B.LE, off.b, i[axis]) if isinstance(off.b, tx.IntImm) and \
            off.a is i[axis] else tx.binop(B.LE, _zero(), off)
        value = te.if_then_else(cond, xs[k][idx], value)
    return value


def _read_shifted(t: te.Tensor, i: tuple[Any, ...], axis: int, start: Any) -> tx.PrimExpr:
    return t[tuple(v - start if k == axis else v for k, v in enumerate(i))]


def strided_slice(x: te.Tensor, spec: list[tuple[Any, Any, int]]) -> te.Tensor:
    """`spec`: (begin, extent, stride) per axis."""
    shape = tuple(tx.const(e, "int64") if isinstance(e, int) else e for _, e, _ in spec)
    at = (lambda v, b, s: v * s + b) if scheduled() else _strided_index
    return te.compute(shape, lambda *i: x[tuple(at(v, b, s) for v, (b, _, s) in zip(i, spec))],
                      name="T_strided_slice")


def _strided_index(v: tx.PrimExpr, begin: Any, stride: int) -> tx.PrimExpr:
    """`begin + v * stride` as TVM writes it: `v`, `v + 2`, `v * 3 + 1`, `8 - v * 3`."""
    b = begin.value if isinstance(begin, tx.IntImm) else begin
    if stride < 0:
        return tx.const(b, "int64") - (v if stride == -1 else v * tx.const(-stride, "int64")) \
            if isinstance(b, int) else b - v * tx.const(-stride, "int64")
    scaled = v if stride == 1 else v * tx.const(stride, "int64")
    if isinstance(b, int):
        return scaled if b == 0 else scaled + tx.const(b, "int64")
    return scaled + b


def take(x: te.Tensor, indices: te.Tensor | tx.PrimExpr, axis: int | None = None,
         mode: str = "fast") -> te.Tensor:
    """`mode`: fast reads the index as given (scheduled kernels clamp it), clip clamps it,
    wrap takes it modulo the axis length, nan gives NaN out of range (TVM's modes). A scalar
    `indices` expression drops the axis."""
    scalar = isinstance(indices, tx.PrimExpr)
    if axis is None:
        x = reshape(x, (simplify(_prod(x.shape)),))
        axis = 0
    axis %= x.ndim
    k = 0 if scalar else indices.ndim  # type: ignore[union-attr]
    ishape = () if scalar else tuple(indices.shape)  # type: ignore[union-attr]
    shape = x.shape[:axis] + ishape + x.shape[axis + 1:]
    n = x.shape[axis]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        raw = indices if scalar else indices[i[axis:axis + k]]  # type: ignore[index]
        if mode == "fast" and not scheduled():
            return x[i[:axis] + (raw,) + i[axis + k:]]
        raw = tx.Cast("int64", raw) if raw.dtype != "int64" else raw
        j = tx.binop(B.FLOORMOD, raw, n) if mode == "wrap" else _clamp(raw, n)
        val = x[i[:axis] + (j,) + i[axis + k:]]
        if mode != "nan":
            return val
        inside = tx.binop(B.AND, tx.binop(B.GE, raw, _zero()), tx.binop(B.LT, raw, n))
        return tx.Select(inside, val, tx.const(float("nan"), x.dtype))
    return te.compute(shape, body, name="T_take")


def _clamp(i: tx.PrimExpr, n: tx.PrimExpr) -> tx.PrimExpr:
    i = tx.Cast("int64", i) if i.dtype != "int64" else i
    last = tx.const(n.value - 1, n.dtype) if isinstance(n, tx.IntImm) else n - 1
    return tx.binop(B.MIN, tx.binop(B.MAX, i, _zero()), last)  # TVM's "fast"/clip mode


def _prod(dims: Any) -> tx.PrimExpr:
    out: tx.PrimExpr = tx.const(1, "int64")
    for d in dims:
        out = out * d
    return out


# -- reductions -----------------------------------------------------------------------------------


def _reduce_axes(x: te.Tensor, axis: Any) -> list[int]:
    if axis is None:
        return list(range(x.ndim))
    items = (axis,) if isinstance(axis, int) else axis
    return sorted({a % x.ndim for a in items})


def _reduce(combiner: str, x: te.Tensor, axis: Any, keepdims: bool, name: str) -> te.Tensor:
    axes = _reduce_axes(x, axis)
    raxes = [te.reduce_axis(x.shape[a], f"k{a}") for a in axes]
    shape = tuple(tx.const(1, "int64") if a in axes else d for a, d in enumerate(x.shape)
                  if keepdims or a not in axes)

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        rest, red = iter(i), iter(raxes)
        src = []
        for a in range(x.ndim):
            if a in axes:
                if keepdims:
                    next(rest)  # the kept size-1 dim
                src.append(next(red))
            else:
                src.append(next(rest))
        return getattr(te, combiner)(x[tuple(src)], axis=raxes, init=_plain_init(combiner,
                                                                                 x.dtype))
    return te.compute(shape, body, name=name)


def _plain_init(combiner: str, dtype: str) -> tx.PrimExpr | None:
    """TVM starts a float max (min) at the lowest (highest) finite value, not at -inf (inf);
    the scheduled kernels keep the infinities (None: the combiner's own identity)."""
    if scheduled() or combiner not in ("max", "min") or not dtype.startswith("float"):
        return None
    return (te.min_value if combiner == "max" else te.max_value)(dtype)


def sum(x: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:  # noqa: A001
    return _reduce("sum", x, axis, keepdims, "T_sum")


def prod(x: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:
    return _reduce("prod", x, axis, keepdims, "T_prod")


def max(x: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:  # noqa: A001
    return _reduce("max", x, axis, keepdims, "T_max")


def min(x: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:  # noqa: A001
    return _reduce("min", x, axis, keepdims, "T_min")


def mean(x: te.Tensor, axis: Any = None, keepdims: bool = False) -> te.Tensor:
    s = sum(x, axis, keepdims)
    count = simplify(_prod(x.shape[a] for a in _reduce_axes(x, axis)))
    # a static count is a float literal, as TVM writes it; a symbolic one is cast
    divisor = tx.const(float(count.value), x.dtype) if isinstance(count, tx.IntImm) \
        and x.dtype.startswith("float") else tx.Cast(x.dtype, count)
    return te.compute(s.shape, lambda *i: s[i] / divisor, name="T_divide")


def argmax(x: te.Tensor, axis: Any = None, keepdims: bool = False, lowest: bool = False
           ) -> te.Tensor:
    """First index of the max (argmin with lowest=True): a max, then a min over matching k."""
    if axis is None:
        flat = reshape(x, (simplify(_prod(x.shape)),))
        out = argmax(flat, 0, False, lowest)
        return reshape(out, (1,) * x.ndim) if keepdims else reshape(out, ())
    axis %= x.ndim
    best = _reduce("min" if lowest else "max", x, axis, True, "T_best")
    k = te.reduce_axis(x.shape[axis], "k")
    shape = tuple(tx.const(1, "int64") if a == axis else d for a, d in enumerate(x.shape)
                  if keepdims or a != axis)
    big = tx.const(2**62, "int64")

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        full_i = list(i) if keepdims else list(i[:axis]) + [_zero()] + list(i[axis:])
        src = tuple(k if a == axis else v for a, v in enumerate(full_i))
        hit = tx.eq(x[src], best[tuple(_zero() if a == axis else v
                                       for a, v in enumerate(full_i))])
        return te.min(tx.Select(hit, k, big), axis=k)
    return te.compute(shape, body, name="T_argmax")
