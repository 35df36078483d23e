"""The newer elementwise operators against numpy: math, classification, clip, activations."""

import numpy as np
import pytest
from op_helpers import rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops import OpError

R = relax.op

UNARY = [("tan", np.tan, 1), ("asin", np.arcsin, 1), ("acos", np.arccos, 1),
         ("atan", np.arctan, 3), ("sinh", np.sinh, 2), ("cosh", np.cosh, 2),
         ("asinh", np.arcsinh, 3), ("acosh", lambda x: np.arccosh(np.abs(x) + 1), 3),
         ("atanh", np.arctanh, 0.9), ("trunc", np.trunc, 3), ("sign", np.sign, 3)]


@pytest.mark.parametrize("name,ref,scale", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref, scale):
    a = rand(2, 5) * scale
    if name == "acosh":
        a = np.abs(a) + 1
        ref = np.arccosh
    np.testing.assert_allclose(run_graph(getattr(R, name), [a]), ref(a), rtol=1e-5, atol=1e-6)


def test_unary_symbolic_shape():
    a = rand(3, 4)
    out = run_graph(R.atan, [a], shapes=[("n", 4)])
    np.testing.assert_allclose(out, np.arctan(a), rtol=1e-6)


def test_classify():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], "float32")
    for name, ref in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        np.testing.assert_array_equal(run_graph(getattr(R, name), [a]), ref(a), err_msg=name)


@pytest.mark.parametrize("name,ref", [("mod", np.fmod), ("atan2", np.arctan2),
                                      ("log_add_exp", np.logaddexp)])
def test_binary_broadcast(name, ref):
    a, b = rand(2, 3, 4, hi=3), rand(4, lo=0.5, hi=2)
    np.testing.assert_allclose(run_graph(getattr(R, name), [a, b]), ref(a, b), rtol=1e-5,
                               atol=1e-6)


def test_int_mod_truncates_and_logical_xor():
    a = np.array([7, -7, 5], "int32")
    b = np.array([3, 3, -2], "int32")
    np.testing.assert_array_equal(run_graph(R.mod, [a, b]), np.fmod(a, b))
    p, q = np.array([True, False, True]), np.array([[True], [False]])
    np.testing.assert_array_equal(run_graph(R.logical_xor, [p, q]), np.logical_xor(p, q))


def test_clip():
    a = rand(3, 4, lo=-2, hi=2)
    out = run_graph(lambda x: R.clip(x, -0.5, 0.75), [a], shapes=[("n", "m")])
    np.testing.assert_allclose(out, np.clip(a, -0.5, 0.75))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _selu(x):
    return 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))


ACTIVATIONS = [
    ("relu6", lambda x: R.nn.relu6(x), lambda x: np.clip(x, 0, 6)),
    ("leakyrelu", lambda x: R.nn.leakyrelu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    ("softplus", lambda x: R.nn.softplus(x, 2.0, 3.0), lambda x: _softplus(x, 2.0, 3.0)),
    ("selu", R.nn.selu, _selu),
]


@pytest.mark.parametrize("name,build,ref", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation(name, build, ref):
    a = rand(2, 8, lo=-8, hi=8)
    np.testing.assert_allclose(run_graph(build, [a]), ref(a), rtol=1e-5, atol=1e-6)


def test_prelu():
    a, alpha = rand(2, 3, 4), rand(3)
    out = run_graph(lambda x, w: R.nn.prelu(x, w, axis=1), [a, alpha])
    np.testing.assert_allclose(out, np.where(a > 0, a, a * alpha[None, :, None]), rtol=1e-6)


@pytest.mark.parametrize("build,shapes", [
    (lambda x: R.clip(x, 0.0, 1.0), [(2, "n")]),
    (lambda x: R.nn.leakyrelu(x, 0.2), [(2, 3)]),
    (lambda x: R.nn.softplus(x, 2.0, 10.0), [(2, 3)]),
    (lambda x, y: R.log_add_exp(x, y), [(2, 3), (3,)]),
    (lambda x, y: R.nn.prelu(x, y), [(2, 3, 4), (3,)]),
    (R.isnan, [(4,)]), (R.acosh, [(4,)]), (R.nn.relu6, [(4,)]),
], ids=["clip", "leakyrelu", "softplus", "log_add_exp", "prelu", "isnan", "acosh", "relu6"])
def test_roundtrip(build, shapes):
    roundtrip(build, shapes)


def test_errors():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "int32"))
    with pytest.raises(OpError, match=r"R.tan: needs a float tensor, got int32"):
        R.tan(x)
    y = relax.Var("y", relax.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(OpError, match=r"alpha has shape \(4,\), expected \(3,\)"):
        R.nn.prelu(y, relax.Var("a", relax.TensorStructInfo((4,), "float32")), axis=1)
