"""Per-operator gradient rules for the Gradient pass (TVM's `FPrimalGradient` attribute).

A rule is `rule(orig_var, orig_call, output_grad, builder) -> [partial per argument]`: given
the forward binding `orig_var = orig_call` and the adjoint of `orig_var`, it returns one
expression per argument of the call, the contribution to that argument's adjoint, or
`R.grad.no_grad(arg)` where the argument takes no gradient (integer indices, shapes). The
expressions are built as TVM builds them, so the pass prints what TVM's pass prints.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.op import op_attr, set_op_attr
from ..ir.ops.base import same_dim, scalar_const

Rule = Callable[[rx.Var, rx.Call, rx.Var, Any], list[rx.Expr]]
GRADIENT_ATTR = "FPrimalGradient"


def register_gradient(op_name: str, rule: Rule | None = None, level: int = 10) -> Any:
    """Register `rule` as the gradient of `op_name` (a decorator when `rule` is omitted)."""
    def register(f: Rule) -> Rule:
        set_op_attr(op_name, GRADIENT_ATTR, f)
        return f
    return register if rule is None else register(rule)


def gradient_rule(op_name: str) -> Rule | None:
    return op_attr(op_name, GRADIENT_ATTR)


def op_maker(name: str) -> Callable[..., rx.Call]:
    return op_attr(f"relax.{name}", "make")


def static_shape(e: rx.Expr) -> tuple[Any, ...]:
    sinfo = e.struct_info
    if not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None:
        raise RuntimeError(f"the gradient needs a tensor of known shape, got {sinfo}")
    return sinfo.shape


def dtype_of(e: rx.Expr) -> str:
    return e.struct_info.dtype  # type: ignore[union-attr]


def const_like(value: float, like: rx.Expr) -> rx.Constant:
    return scalar_const(value, dtype_of(like))


def no_grad(e: rx.Expr) -> rx.Call:
    return op_maker("grad.no_grad")(e)


def fit_shape(grad: rx.Expr, target: rx.Expr) -> rx.Expr:
    """`grad`, summed down to `target`'s shape when broadcasting made it bigger."""
    have, want = static_shape(grad), static_shape(target)
    if len(have) == len(want) and all(same_dim(a, b) is True for a, b in zip(have, want)):
        return grad
    return op_maker("collapse_sum_to")(grad, want)


def _prod(x: rx.Expr, axis: Any) -> int:
    shape = static_shape(x)
    dims = shape if axis is None else [shape[int(a)] for a in axis]
    return math.prod(int(d) for d in dims)


# -- binary arithmetic ------------------------------------------------------------------------

@register_gradient("relax.add")
def _add(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [fit_shape(g, c.args[0]), fit_shape(g, c.args[1])]


@register_gradient("relax.subtract")
def _subtract(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [fit_shape(g, c.args[0]), fit_shape(-g, c.args[1])]


@register_gradient("relax.multiply")
def _multiply(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, y = c.args
    return [fit_shape(g * y, x), fit_shape(g * x, y)]


@register_gradient("relax.divide")
def _divide(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, y = c.args
    return [fit_shape(g / y, x), fit_shape(-g * v / y, y)]


@register_gradient("relax.power")
def _power(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, y = c.args
    return [fit_shape(g * y * x ** (y - const_like(1, y)), x),
            fit_shape(g * v * op_maker("log")(x), y)]


def _select_grad(x_zero_when: str, y_zero_when: str) -> Rule:
    """maximum / minimum: the gradient flows to the argument that was chosen."""
    def rule(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
        x, y = c.args
        zero = const_like(0, x)
        return [fit_shape(op_maker("where")(op_maker(x_zero_when)(x, y), zero, g), x),
                fit_shape(op_maker("where")(op_maker(y_zero_when)(x, y), zero, g), y)]
    return rule


register_gradient("relax.maximum", _select_grad("less", "greater_equal"))
register_gradient("relax.minimum", _select_grad("greater_equal", "less"))


def _no_grad_rule(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [no_grad(a) for a in c.args]


for _name in ("equal", "greater", "greater_equal", "less", "less_equal", "not_equal",
              "zeros_like", "ones_like", "full_like", "zeros", "ones", "full"):
    register_gradient(f"relax.{_name}", _no_grad_rule)


@register_gradient("relax.triu")
def _triu(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    # NOTE: TVM's rule gives no partial for k, which its own arity check refuses
    return [op_maker("triu")(g, c.args[1]), no_grad(c.args[1])]


# -- unary ------------------------------------------------------------------------------------

@register_gradient("relax.abs")
def _abs(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    one = const_like(1, x)
    return [g * op_maker("where")(op_maker("less")(x, const_like(0, x)), -one, one)]


@register_gradient("relax.cos")
def _cos(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [-g * op_maker("sin")(c.args[0])]


@register_gradient("relax.sin")
def _sin(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g * op_maker("cos")(c.args[0])]


@register_gradient("relax.exp")
def _exp(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g * v]


@register_gradient("relax.log")
def _log(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g / c.args[0]]


@register_gradient("relax.negative")
def _negative(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [-g]


@register_gradient("relax.sigmoid")
def _sigmoid(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g * v * (const_like(1, c.args[0]) - v)]


@register_gradient("relax.sqrt")
def _sqrt(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [const_like(0.5, c.args[0]) * g / v]


@register_gradient("relax.tanh")
def _tanh(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g * (const_like(1, c.args[0]) - v * v)]


@register_gradient("relax.astype")
def _astype(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("astype")(g, dtype_of(c.args[0]))]


# -- reductions -------------------------------------------------------------------------------

def _unreduce(g: rx.Expr, c: rx.Call) -> rx.Expr:
    """The output gradient with the reduced axes back (as size 1), when they were dropped."""
    axis = c.attr("axis")
    return op_maker("expand_dims")(g, axis) if not c.attr("keepdims") and axis else g


@register_gradient("relax.sum")
def _sum(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("broadcast_to")(_unreduce(g, c), static_shape(c.args[0]))]


@register_gradient("relax.mean")
def _mean(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x = c.args[0]
    scaled = g / scalar_const(_prod(x, c.attr("axis")), dtype_of(g))
    return [op_maker("broadcast_to")(_unreduce(scaled, c), static_shape(x))]


@register_gradient("relax.variance")
def _variance(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, axis = c.args[0], c.attr("axis")
    n = _prod(x, axis)
    mean_part = const_like(2.0 / n / n, x) * op_maker("sum")(x, axis, True)
    centred = const_like(2.0 / n, x) * x - mean_part
    return [_unreduce(g, c) * centred]


# -- shape changes ----------------------------------------------------------------------------

@register_gradient("relax.permute_dims")
def _permute_dims(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    axes = c.attr("axes")
    if not axes:
        return [op_maker("permute_dims")(g)]
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[int(a)] = i
    return [op_maker("permute_dims")(g, inverse)]


@register_gradient("relax.concat")
def _concat(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    axis = int(c.attr("axis"))
    fields = c.args[0].struct_info.fields  # type: ignore[union-attr]
    cuts: list[Any] = []
    for f in fields[:-1]:
        cuts.append(f.shape[axis] if not cuts else cuts[-1] + f.shape[axis])
    return [op_maker("split")(g, cuts, axis)]


@register_gradient("relax.split")
def _split(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("concat")(g, int(c.attr("axis")))]


@register_gradient("relax.expand_dims")
def _expand_dims(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("squeeze")(g, c.attr("axis"))]


@register_gradient("relax.reshape")
def _reshape(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("reshape")(g, static_shape(c.args[0])), no_grad(c.args[1])]


@register_gradient("relax.cumsum")
def _cumsum(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    axis, x = c.attr("axis"), c.args[0]
    if axis is not None:
        axis = int(axis)
        grad = op_maker("sum")(g, axis, True) - op_maker("cumsum")(g, axis) + g
    else:
        grad = op_maker("reshape")(op_maker("sum")(g, None, True) - op_maker("cumsum")(g)
                              + op_maker("flatten")(g), static_shape(x))
    if c.attr("dtype"):
        grad = op_maker("astype")(grad, dtype_of(x))
    return [grad]


@register_gradient("relax.broadcast_to")
def _broadcast_to(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("collapse_sum_to")(g, static_shape(c.args[0])), no_grad(c.args[1])]


@register_gradient("relax.take")
def _take(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    x, indices = c.args
    return [op_maker("grad.take_backward")(g, x, indices, c.attr("axis")), no_grad(indices)]


@register_gradient("relax.where")
def _where(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    cond, x1, x2 = c.args
    return [no_grad(cond), op_maker("where")(cond, g, const_like(0, x1)),
            op_maker("where")(cond, const_like(0, x2), g)]


def _swap_last_two(t: rx.Expr) -> rx.Call:
    n = len(static_shape(t))
    return op_maker("permute_dims")(t, [i if i < n - 2 else 2 * n - 3 - i for i in range(n)])


@register_gradient("relax.matmul")
def _matmul(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    a, b = c.args
    na, nb = len(static_shape(a)), len(static_shape(b))
    mm, ex = op_maker("matmul"), op_maker("expand_dims")
    if na > 1 and nb > 1:
        ga, gb = mm(g, _swap_last_two(b)), mm(_swap_last_two(a), g)
    elif na == 1 and nb > 1:
        g2 = ex(g, -2)
        ga, gb = mm(g2, _swap_last_two(b)), mm(ex(a, 1), g2)
    elif nb == 1 and na > 1:
        g2 = ex(g, -1)
        ga = mm(g2, ex(b, 0))
        gb = op_maker("squeeze")(mm(_swap_last_two(a), g2), [-1])
    else:
        ga, gb = g * b, g * a
    return [fit_shape(ga, a), fit_shape(gb, b)]


# -- beyond TVM's rules: common operators of models trained with tvmlite -----------------------

@register_gradient("relax.square")
def _square(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [g * (const_like(2, c.args[0]) * c.args[0])]


@register_gradient("relax.rsqrt")
def _rsqrt(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    # d x^(-1/2) = -1/2 x^(-3/2) = -1/2 y^3
    return [g * (const_like(-0.5, c.args[0]) * v * v * v)]


@register_gradient("relax.squeeze")
def _squeeze(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("reshape")(g, static_shape(c.args[0]))]


@register_gradient("relax.flatten")
def _flatten(v: rx.Var, c: rx.Call, g: rx.Var, bb: Any) -> list[rx.Expr]:
    return [op_maker("reshape")(g, static_shape(c.args[0]))]
