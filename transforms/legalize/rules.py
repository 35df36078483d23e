"""Legalization rules: one entry per operator name -> the te compute that implements it.

A rule is `rule(call, *args)` where tensor arguments arrive as te placeholders, shapes as
tuples of dims, and tuples as lists; it returns a te tensor (or a list for tuple results).
`LEGALIZE` is the registry LegalizeOps reads (STYLE habit 4); `register_legalize` adds to it.
"""

from __future__ import annotations

from typing import Any, Callable

from ... import topi
from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.ops.elementwise import BINARY, COMPARE, LOGICAL, NN_UNARY, UNARY
from ...ir.ops.manipulate import slice_spec, split_bounds
from ...tir import expr as tx
from ...topi.argreduce import argreduce
from ...topi.linalg_stats import matmul_plain
from ...topi.schedule_mode import scheduled

Rule = Callable[..., Any]
LEGALIZE: dict[str, Rule] = {}
# TVM names the prim_funcs of these operators `tir_<op>` (every other one plain `<op>`).
TIR_PREFIXED = frozenset(
    f"relax.{n}" for n in (
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil", "cos",
        "cosh", "exp", "floor", "isfinite", "isinf", "isnan", "log", "logical_not",
        "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "square", "sqrt",
        "tan", "tanh", "trunc", "clip"))


# ...and these after the topi function TVM calls for them.
TOPI_NAMED = {
    "relax.concat": "concatenate", "relax.flatten": "reshape", "relax.permute_dims": "transpose",
    "relax.collapse_sum_like": "collapse_sum", "relax.collapse_sum_to": "collapse_sum",
    "relax.full_like": "full", "relax.ones_like": "ones", "relax.zeros_like": "zeros",
    "relax.astype": "cast", "relax.nn.leakyrelu": "leaky_relu",
    "relax.nn.batch_flatten": "reshape", "relax.layout_transform": "te_layout_transform"}


# ...and these by the call itself (name -> fn(call) giving the name, or None for the above)
NAMED_BY_CALL: dict[str, Callable[[rx.Call], str | None]] = {}


def primfunc_name(op_name: str, call: rx.Call | None = None) -> str:
    """The name LegalizeOps gives the prim_func of an `op_name` call (before uniquing)."""
    named = NAMED_BY_CALL.get(op_name) if call is not None else None
    if named is not None and named(call) is not None:  # type: ignore[arg-type]
        return named(call)  # type: ignore[arg-type,return-value]
    if op_name in TOPI_NAMED:
        return TOPI_NAMED[op_name]
    base = op_name.split(".")[-1]
    return f"tir_{base}" if op_name in TIR_PREFIXED else base


# Operators TVM legalizes to a relax expression rather than a kernel when their arguments are
# constants (`arange(1, 10, 2)` becomes `R.const([1, 3, 5, 7, 9])`): name -> fold(call), which
# returns the expression, or None to legalize the call as usual.
FOLD: dict[str, Callable[[rx.Call], rx.Expr | None]] = {}


def register_legalize(name: str, rule: Rule | None = None) -> Any:
    def add(f: Rule) -> Rule:
        LEGALIZE[name] = f
        return f
    return add(rule) if rule is not None else add


def _out(call: rx.Call) -> si.TensorStructInfo:
    s = call.struct_info
    assert isinstance(s, si.TensorStructInfo)
    return s


def _simple(fn: Callable[..., Any]) -> Rule:
    return lambda call, *args: fn(*args)


for _n in BINARY + COMPARE + LOGICAL + UNARY:
    register_legalize(f"relax.{_n}", _simple(getattr(topi, _n)))
for _n in NN_UNARY:
    register_legalize(f"relax.nn.{_n}", _simple(getattr(topi.nn, _n)))
register_legalize("relax.astype", lambda c, x: topi.cast(x, c.attr("dtype")))
register_legalize("relax.where", _simple(topi.where))
register_legalize("relax.ewise_fma", lambda c, a, b, d: topi.add(topi.multiply(a, b), d))
register_legalize("relax.matmul", lambda c, a, b: topi.matmul(
    a, b, out_dtype=c.attr("out_dtype")) if scheduled() else matmul_plain(
    a, b, c.attr("out_dtype") or None))
register_legalize("relax.permute_dims", lambda c, x: topi.transpose(x, c.attr("axes")))
register_legalize("relax.reshape", lambda c, x, shape: topi.reshape(x, _out(c).shape))
register_legalize("relax.flatten", lambda c, x: topi.reshape(x, _out(c).shape))


@register_legalize("relax.expand_dims")
def _expand_dims(call: rx.Call, x: Any) -> Any:
    """Each output index maps straight to an input index (TVM's topi.expand_dims form)."""
    from ... import te

    ndim = x.ndim + len(call.attr("axis"))
    new_axes = {a % ndim for a in call.attr("axis")}
    return te.compute(_out(call).shape, lambda *i: x[tuple(
        v for k, v in enumerate(i) if k not in new_axes)], name="expand_dims")


@register_legalize("relax.squeeze")
def _squeeze(call: rx.Call, x: Any) -> Any:
    """Dropped unit axes read index 0 (TVM's topi.squeeze form)."""
    from ... import te

    axis = call.attr("axis")
    if axis is None:
        dropped = {k for k, d in enumerate(x.shape) if isinstance(d, tx.IntImm) and d.value == 1}
    else:
        dropped = {a % x.ndim for a in axis  # a known extent other than 1 stays (TVM 0.27)
                   if not (isinstance(x.shape[a % x.ndim], tx.IntImm)
                           and x.shape[a % x.ndim].value != 1)}

    def body(*i: tx.PrimExpr) -> Any:
        kept = iter(i)
        return x[tuple(tx.const(0, d.dtype) if k in dropped else next(kept)
                       for k, d in enumerate(x.shape))]
    return te.compute(_out(call).shape, body, name="T_squeeze")


register_legalize("relax.broadcast_to", lambda c, x, shape: topi.broadcast_to(x, shape))
register_legalize("relax.concat", lambda c, xs: topi.concatenate(xs, c.attr("axis")))
register_legalize("relax.take", lambda c, x, indices: topi.take(
    x, indices, c.attr("axis"), c.attr("mode") or "fast"))
register_legalize("relax.strided_slice",
                  lambda c, x: topi.strided_slice(x, slice_spec(c, x.shape)))
def fill_value(v: Any, dtype: str) -> Any:
    """A fill value inlined from a 0-d constant, converted to the output dtype as TVM does
    (3.5 fills an int32 tensor with 3); a tensor value stays a tensor."""
    if not isinstance(v, (tx.IntImm, tx.FloatImm)) or v.dtype == dtype:
        return v
    if dtype == "bool":
        return tx.const(bool(v.value), dtype)
    return tx.const(float(v.value) if dtype.startswith("float") else int(v.value), dtype)


register_legalize("relax.full",
                  lambda c, shape, v: topi.full(shape, c.attr("dtype"), fill_value(v, c.attr(
                      "dtype"))))
register_legalize("relax.zeros", lambda c, shape: topi.full(shape, c.attr("dtype"), 0))
register_legalize("relax.ones", lambda c, shape: topi.full(shape, c.attr("dtype"), 1))


@register_legalize("relax.split")
def _split(call: rx.Call, x: Any) -> list[Any]:
    axis = call.attr("axis") % x.ndim
    pieces = []
    for lo, hi in split_bounds("relax.split", x.shape[axis], call.attr("indices_or_sections")):
        spec: list[tuple[Any, Any, int]] = [(0, d, 1) for d in x.shape]
        if isinstance(hi, tx.IntImm):
            hi = hi.value
        spec[axis] = (lo, tx.const(hi - lo, "int64") if isinstance(hi, int) else hi - lo, 1)
        pieces.append(topi.strided_slice(x, spec))
    return pieces


for _n in ("sum", "mean", "max", "min", "prod"):
    register_legalize(f"relax.{_n}", (lambda f: lambda c, x: f(
        x, c.attr("axis"), c.attr("keepdims")))(getattr(topi, _n)))
register_legalize("relax.argmax", lambda c, x: (topi.argmax if scheduled() else argreduce)(
    x, c.attr("axis"), c.attr("keepdims"), lowest=False))
register_legalize("relax.argmin", lambda c, x: (topi.argmax if scheduled() else argreduce)(
    x, c.attr("axis"), c.attr("keepdims"), lowest=True))
register_legalize("relax.nn.softmax", lambda c, x: topi.nn.softmax(x, c.attr("axis")))
register_legalize("relax.nn.log_softmax", lambda c, x: topi.nn.log_softmax(x, c.attr("axis")))
register_legalize("relax.nn.layer_norm", lambda c, x, g, b: topi.nn.layer_norm(
    x, g, b, c.attr("axes"), c.attr("epsilon"), c.attr("center"), c.attr("scale")))
register_legalize("relax.nn.rms_norm", lambda c, x, w: topi.nn.rms_norm(
    x, w, c.attr("axes"), c.attr("epsilon")))


@register_legalize("relax.nn.batch_norm")
def _batch_norm(call: rx.Call, x: Any, gamma: Any, beta: Any, mean: Any, var: Any) -> list[Any]:
    args = (x, gamma, beta, mean, var, call.attr("axis"), call.attr("epsilon"),
            call.attr("center"), call.attr("scale"))
    if call.attr("training"):  # absent (older modules, our graph rewrites): inference
        return list(topi.nn.batch_norm_training(*args, call.attr("momentum")))
    return [topi.nn.batch_norm(*args), topi.identity(mean), topi.identity(var)]


register_legalize("relax.nn.dropout", lambda c, x: [topi.identity(x), topi.full(
    x.shape, x.dtype, 1)])  # inference: the identity, and a mask of ones
@register_legalize("relax.nn.conv2d")
def _conv2d(call: rx.Call, x: Any, w: Any) -> Any:
    """Other layouts run the NCHW/OIHW compute between transposes."""
    dl, kl = call.attr("data_layout") or "NCHW", call.attr("kernel_layout") or "OIHW"
    if dl != "NCHW":
        x = topi.transpose(x, [dl.index(ch) for ch in "NCHW"])
    if kl != "OIHW":
        w = topi.transpose(w, [kl.index(ch) for ch in "OIHW"])
    out = topi.nn.conv2d_nchw(x, w, call.attr("strides"), call.attr("padding"),
                              call.attr("dilation"), call.attr("groups"), call.attr("out_dtype"))
    return out if dl == "NCHW" else topi.transpose(out, ["NCHW".index(ch) for ch in dl])


def _pool(kind: str) -> Rule:
    return lambda c, x: topi.nn.pool2d_nchw(x, kind, c.attr("pool_size"), c.attr("strides"),
                                       c.attr("padding"), c.attr("dilation"),
                                       c.attr("ceil_mode"), c.attr("count_include_pad"))


register_legalize("relax.nn.max_pool2d", _pool("max"))
register_legalize("relax.nn.avg_pool2d", _pool("avg"))
register_legalize("relax.nn.adaptive_avg_pool2d", lambda c, x: topi.nn.adaptive_pool(
    x, c.attr("output_size") or (x.shape[2], x.shape[3])))
