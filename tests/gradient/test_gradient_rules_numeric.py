"""Every gradient rule against central finite differences of the forward function."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grad_helpers import adjoint, check_gradient, make_module, rand  # noqa: E402

from tvmlite import relax  # noqa: E402

op = relax.op
S = op.sum

UNARY = {
    "exp": op.exp, "log": op.log, "sin": op.sin, "cos": op.cos, "tanh": op.tanh,
    "sigmoid": op.sigmoid, "sqrt": op.sqrt, "negative": op.negative, "abs": op.abs,
    "relu": op.nn.relu, "silu": op.nn.silu,
    "softmax": lambda x: op.nn.softmax(x, axis=-1),
    "log_softmax": lambda x: op.nn.log_softmax(x, axis=1),
    "triu": lambda x: op.triu(x, 1),
    "permute_dims": lambda x: op.permute_dims(x, [1, 0]),
    "expand_dims": lambda x: op.expand_dims(x, [1]),
    "reshape": lambda x: op.reshape(x, (4, 3)),
    "broadcast_to": lambda x: op.broadcast_to(x, (2, 3, 4)),
    "cumsum": lambda x: op.cumsum(x, axis=1),
    "cumsum_flat": lambda x: op.cumsum(x),
    "mean_axis": lambda x: op.mean(x, axis=[1]),
    "sum_keep": lambda x: op.sum(x, axis=[0], keepdims=True),
    "variance": lambda x: op.variance(x, axis=[1]),
    # rules tvmlite adds to TVM's
    "square": op.square, "rsqrt": op.rsqrt,
    "leakyrelu": lambda x: op.nn.leakyrelu(x, 0.1),
    "squeeze": lambda x: op.squeeze(op.expand_dims(x, [0]), [0]),
    "flatten": lambda x: op.reshape(op.flatten(op.reshape(x, (3, 2, 2))), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rule(name: str) -> None:
    f = UNARY[name]
    # log / sqrt need positive inputs; weights keep the loss from being a plain sum
    x = rand(3, 4, lo=0.2, hi=1.5) if name in ("log", "sqrt", "rsqrt") else rand(3, 4)
    w = rand(*{"expand_dims": (3, 1, 4), "reshape": (4, 3), "broadcast_to": (2, 3, 4),
               "mean_axis": (3,), "sum_keep": (1, 4), "variance": (3,),
               "cumsum_flat": (12,), "permute_dims": (4, 3)}.get(name, (3, 4)))
    check_gradient(lambda x, w: S(op.multiply(f(x), w)), [x, w], [0])


BINARY = {
    "add": op.add, "subtract": op.subtract, "multiply": op.multiply, "divide": op.divide,
    "power": op.power, "maximum": op.maximum, "minimum": op.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_rule_with_broadcast(name: str) -> None:
    f = BINARY[name]
    x, y = rand(3, 4, lo=0.5, hi=1.5), rand(4, lo=0.5, hi=1.5)  # y is broadcast over rows
    w = rand(3, 4)
    check_gradient(lambda x, y, w: S(op.multiply(f(x, y), w)), [x, y, w], [0, 1])


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)),
                                    ((2, 3, 4), (4, 2)), ((4,), (4,))])
def test_matmul_rule(shapes: tuple) -> None:
    a, b = rand(*shapes[0]), rand(*shapes[1])
    if len(shapes[0]) == len(shapes[1]) == 1:  # a scalar product: the loss itself
        check_gradient(lambda a, b: op.multiply(op.matmul(a, b), op.matmul(a, b)), [a, b])
        return
    check_gradient(lambda a, b: S(op.multiply(op.matmul(a, b), op.matmul(a, b))), [a, b])


def test_where_concat_split_rules() -> None:
    x, y = rand(3, 4), rand(3, 4)

    def f(x: relax.Expr, y: relax.Expr) -> relax.Expr:
        bb = relax.BlockBuilder.current()
        halves = bb.emit(op.split(op.concat([x, op.multiply(y, y)], axis=0), 2, axis=0))
        top, bottom = bb.emit(halves[0]), bb.emit(halves[1])
        return S(op.where(op.greater(x, y), op.multiply(top, top), op.exp(bottom)))
    check_gradient(f, [x, y])


@pytest.mark.parametrize("axis,idx", [(0, [4, 0, 4, 2]), (1, [[2, 2], [0, 1]]),
                                      (None, [14, 3, 3])])
def test_take_rule(axis: int | None, idx: list) -> None:
    x = rand(5, 3)

    def f(x: relax.Expr, i: relax.Expr) -> relax.Expr:
        t = op.take(x, i, axis=axis)
        return S(op.multiply(t, t))
    check_gradient(f, [x, np.array(idx, "int32")], [0])


def test_cross_entropy_and_nll_loss_rules() -> None:
    logits, labels = rand(3, 5), np.abs(rand(3, 5))
    check_gradient(lambda x, y: op.nn.cross_entropy_with_logits(op.nn.log_softmax(x), y),
                   [logits, labels], [0])
    target = np.array([1, 4, 0], "int64")
    for reduction in ("mean", "sum"):
        check_gradient(lambda x, t, w, r=reduction: op.nn.nll_loss(
            op.nn.log_softmax(x), t, w, reduction=r, ignore_index=4),
            [logits, target, np.abs(rand(5)) + 0.5], [0])


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("attrs", [dict(pool_size=(2, 2), strides=(2, 2)),
                                   dict(pool_size=(3, 3), strides=(1, 1), padding=(1, 1)),
                                   dict(pool_size=(3, 2), strides=(2, 1), padding=(1, 0, 0, 1),
                                        count_include_pad=True)])
def test_pool2d_rules(kind: str, attrs: dict) -> None:
    x = rand(1, 2, 5, 6)
    pool = op.nn.max_pool2d if kind == "max" else op.nn.avg_pool2d

    def f(x: relax.Expr) -> relax.Expr:
        y = pool(x, **attrs)
        return S(op.multiply(y, y))
    check_gradient(f, [x])


@pytest.mark.parametrize("attrs", [dict(), dict(strides=(2, 2), padding=(1, 1)),
                                   dict(padding=(1, 0, 0, 1), dilation=(2, 1))])
def test_conv2d_rule(attrs: dict) -> None:
    x, w = rand(2, 3, 6, 5), rand(4, 3, 3, 2)

    def f(x: relax.Expr, w: relax.Expr) -> relax.Expr:
        y = op.nn.conv2d(x, w, **attrs)
        return S(op.multiply(y, y))
    check_gradient(f, [x, w])


def test_grouped_conv2d_rule() -> None:
    x, w = rand(2, 4, 5, 5), rand(6, 2, 3, 3)

    def f(x: relax.Expr, w: relax.Expr) -> relax.Expr:
        y = op.nn.conv2d(x, w, strides=(2, 1), padding=(1, 1), groups=2)
        return S(op.multiply(y, y))
    check_gradient(f, [x, w])


def test_max_pool2d_rule_sends_a_tied_maximum_to_one_element() -> None:
    # relu before a pool leaves windows of equal zeros: one element takes the gradient
    x = np.array([[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 2.0]]]])

    def f(x: relax.Expr) -> relax.Expr:
        return S(op.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2)))
    _, (gx,) = adjoint(make_module(f, [x]), [x])
    np.testing.assert_array_equal(gx, [[[[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]])


def test_gelu_rule() -> None:
    # NOTE: float32 against the closed form (float64 erf does not compile yet)
    x = rand(3, 4).astype("float32") * 2
    mod = make_module(lambda x: S(op.nn.gelu(x)), [x])
    _, (gx,) = adjoint(mod, [x])
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(gx, cdf + x * pdf, rtol=1e-5, atol=1e-6)
