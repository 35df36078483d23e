"""Every high-level operator against numpy: broadcasting, symbolic shapes, attributes."""

import numpy as np
import pytest

from graph_helpers import run_graph
from tvmlite import relax

R = relax.op
RNG = np.random.default_rng(0)


def rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
          ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
          ("power", lambda a, b: np.power(np.abs(a), b))]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5))])
def test_binary_broadcast(name, ref, sa, sb):
    a, b = rand(*sa), rand(*sb)
    if name == "power":
        a = np.abs(a)
    out = run_graph(lambda x, y: getattr(R, name)(x, y), [a, b])
    np.testing.assert_allclose(out, ref(a, b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,ref", [("equal", np.equal), ("less", np.less),
                                      ("greater_equal", np.greater_equal),
                                      ("not_equal", np.not_equal)])
def test_compare(name, ref):
    a, b = rand(3, 4), rand(4)
    b[1] = a[0, 1]
    np.testing.assert_array_equal(run_graph(lambda x, y: getattr(R, name)(x, y), [a, b]),
                                  ref(a, b))


def _gelu(x):
    from math import erf
    return x * 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))


UNARY = [("exp", np.exp), ("log", lambda x: np.log(np.abs(x) + 1)), ("sqrt", np.sqrt),
         ("tanh", np.tanh), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
         ("negative", np.negative), ("abs", np.abs)]


@pytest.mark.parametrize("name,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref):
    a = rand(2, 5)
    if name in ("sqrt",):
        a = np.abs(a)
    if name == "log":
        a = np.abs(a) + 1
        ref = np.log
    np.testing.assert_allclose(run_graph(getattr(R, name), [a]), ref(a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,ref", [("relu", lambda x: np.maximum(x, 0)), ("gelu", _gelu),
                                      ("silu", lambda x: x / (1 + np.exp(-x)))])
def test_nn_activations(name, ref):
    a = rand(3, 7)
    np.testing.assert_allclose(run_graph(getattr(R.nn, name), [a]), ref(a), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4),
                                   (5, 4, 2)), ((4,), (4, 5)), ((3, 4), (4,))])
def test_matmul(sa, sb):
    a, b = rand(*sa), rand(*sb)
    np.testing.assert_allclose(run_graph(R.matmul, [a, b]), a @ b, rtol=1e-5, atol=1e-5)


def test_layout_ops():
    a = rand(2, 3, 4)
    np.testing.assert_array_equal(run_graph(lambda x: R.permute_dims(x, [2, 0, 1]), [a]),
                                  a.transpose(2, 0, 1))
    np.testing.assert_array_equal(run_graph(lambda x: R.permute_dims(x), [a]), a.T)
    np.testing.assert_array_equal(run_graph(lambda x: R.reshape(x, (4, -1)), [a]),
                                  a.reshape(4, -1))
    np.testing.assert_array_equal(run_graph(R.flatten, [a]), a.ravel())
    np.testing.assert_array_equal(run_graph(lambda x: R.expand_dims(x, [0, 2]), [a]),
                                  a[None, :, None])
    b = rand(1, 3, 1)
    np.testing.assert_array_equal(run_graph(lambda x: R.squeeze(x), [b]), b.squeeze())
    np.testing.assert_array_equal(run_graph(lambda x: R.squeeze(x, [0]), [b]), b[0])
    np.testing.assert_array_equal(run_graph(lambda x: R.broadcast_to(x, (2, 4, 3, 5)), [b]),
                                  np.broadcast_to(b, (2, 4, 3, 5)))


def test_concat_split_slice_take():
    a, b = rand(2, 3), rand(2, 5)
    np.testing.assert_array_equal(run_graph(lambda x, y: R.concat([x, y], axis=1), [a, b]),
                                  np.concatenate([a, b], 1))
    c = rand(6, 4)
    parts = run_graph(lambda x: R.split(x, 3, axis=0), [c])
    for got, want in zip(parts, np.split(c, 3, 0)):
        np.testing.assert_array_equal(got, want)
    parts = run_graph(lambda x: R.split(x, [1, 3], axis=1), [c])
    for got, want in zip(parts, np.split(c, [1, 3], 1)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        run_graph(lambda x: R.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[5, 4],
                                            strides=[2, 3]), [c]), c[1:5:2, 0:4:3])
    idx = np.array([3, 0, 2], "int64")
    np.testing.assert_array_equal(run_graph(lambda x, i: R.take(x, i, axis=0), [c, idx]),
                                  c[idx])
    np.testing.assert_array_equal(run_graph(lambda x, i: R.take(x, i, axis=1), [c, idx]),
                                  c[:, idx])


def test_where_astype_creation():
    a, b = rand(3, 4), rand(4)
    cond = a > 0
    np.testing.assert_array_equal(run_graph(R.where, [cond, a, b]), np.where(cond, a, b))
    np.testing.assert_array_equal(run_graph(lambda x: R.astype(x, "int32"), [a]),
                                  a.astype("int32"))
    np.testing.assert_array_equal(run_graph(lambda x: R.add(x, R.zeros((3, 4), "float32")),
                                            [a]), a)
    np.testing.assert_array_equal(run_graph(lambda x: R.add(x, R.ones((4,), "float32")), [a]),
                                  a + 1)
    np.testing.assert_array_equal(run_graph(lambda x: R.add(x, R.full((3, 1), 2.5)), [a]),
                                  a + 2.5)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("axis,keep", [(None, False), (1, False), ([0, 2], True), (-1, True)])
def test_reductions(name, axis, keep):
    a = rand(2, 3, 4)
    ref = getattr(np, name)(a, axis=tuple(axis) if isinstance(axis, list) else axis,
                            keepdims=keep)
    out = run_graph(lambda x: getattr(R, name)(x, axis=axis, keepdims=keep), [a])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis,keep", [(None, False), (1, False), (2, True)])
def test_argmax_argmin(axis, keep):
    a = rand(2, 3, 4)
    np.testing.assert_array_equal(run_graph(lambda x: R.argmax(x, axis, keep), [a]),
                                  np.argmax(a, axis=axis, keepdims=keep))
    np.testing.assert_array_equal(run_graph(lambda x: R.argmin(x, axis, keep), [a]),
                                  np.argmin(a, axis=axis, keepdims=keep))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_softmax_norms():
    a = rand(3, 5)
    np.testing.assert_allclose(run_graph(R.nn.softmax, [a]), _softmax(a), rtol=1e-5)
    np.testing.assert_allclose(run_graph(lambda x: R.nn.log_softmax(x, 0), [a]),
                               np.log(_softmax(a, 0)), rtol=1e-5, atol=1e-6)
    g, b = rand(5), rand(5)
    mu, var = a.mean(-1, keepdims=True), a.var(-1, keepdims=True)
    np.testing.assert_allclose(
        run_graph(lambda x, gg, bb: R.nn.layer_norm(x, gg, bb, axes=[-1]), [a, g, b]),
        (a - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)
    x = rand(2, 3, 4, 4)
    gamma, beta, mean, v = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    c = (slice(None), None, None)
    out, m_out, v_out = run_graph(lambda *a: R.nn.batch_norm(*a, training=False),
                                  [x, gamma, beta, mean, v])
    ref = (x - mean[c]) / np.sqrt(v[c] + 1e-5) * gamma[c] + beta[c]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(m_out, mean)
    np.testing.assert_array_equal(v_out, v)
    # TVM's default, training=True: the batch's statistics; moving ones updated by momentum
    out, m_out, v_out = run_graph(lambda *a: R.nn.batch_norm(*a, momentum=0.25),
                                  [x, gamma, beta, mean, v])
    bm, bv = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - bm[c]) / np.sqrt(bv[c] + 1e-5) * gamma[c] + beta[c]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m_out, 0.75 * mean + 0.25 * bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v_out, 0.75 * v + 0.25 * bv, rtol=1e-5, atol=1e-6)
    out, _mask = run_graph(lambda t: R.nn.dropout(t, 0.5), [a])
    np.testing.assert_array_equal(out, a)


def _conv_ref(x, w, stride, pad, dil=1, groups=1):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // groups
    for f in range(o):
        g = f // og
        for y in range(oh):
            for z in range(ow):
                patch = xp[:, g * ci:(g + 1) * ci, y * stride:y * stride + dil * (kh - 1) + 1:dil,
                           z * stride:z * stride + dil * (kw - 1) + 1:dil]
                out[:, f, y, z] = (patch * w[f]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("stride,pad,dil,groups", [(1, 1, 1, 1), (2, 0, 1, 1), (1, 2, 2, 1),
                                                   (1, 1, 1, 2)])
def test_conv2d(stride, pad, dil, groups):
    x, w = rand(1, 4, 7, 6), rand(6, 4 // groups, 3, 3)
    out = run_graph(lambda a, b: R.nn.conv2d(a, b, strides=stride, padding=pad, dilation=dil,
                                             groups=groups), [x, w])
    np.testing.assert_allclose(out, _conv_ref(x, w, stride, pad, dil, groups), rtol=1e-4,
                               atol=1e-4)


def test_pooling():
    x = rand(1, 2, 6, 7)
    out = run_graph(lambda a: R.nn.max_pool2d(a, pool_size=2, strides=2), [x])
    np.testing.assert_array_equal(out, x[:, :, :6, :6].reshape(1, 2, 3, 2, 3, 2).max((3, 5)))
    out = run_graph(lambda a: R.nn.avg_pool2d(a, pool_size=2, strides=2), [x])
    np.testing.assert_allclose(out, x[:, :, :6, :6].reshape(1, 2, 3, 2, 3, 2).mean((3, 5)),
                               rtol=1e-6)
    out = run_graph(lambda a: R.nn.max_pool2d(a, pool_size=3, strides=1, padding=1), [x])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ref = np.max([xp[:, :, i:i + 6, j:j + 7] for i in range(3) for j in range(3)], axis=0)
    np.testing.assert_array_equal(out, ref)
    out = run_graph(lambda a: R.nn.adaptive_avg_pool2d(a, (1, 1)), [x])
    np.testing.assert_allclose(out, x.mean((2, 3), keepdims=True), rtol=1e-5)
    out = run_graph(lambda a: R.nn.adaptive_avg_pool2d(a, (3, 7)), [x])
    np.testing.assert_allclose(out, x.reshape(1, 2, 3, 2, 7).mean(3), rtol=1e-5)


def test_symbolic_shapes():
    for n in (1, 5):
        a, b = rand(n, 4), rand(4)
        out = run_graph(lambda x, y: R.nn.relu(R.add(x, y)), [a, b], [("n", 4), (4,)])
        np.testing.assert_array_equal(out, np.maximum(a + b, 0))
        w = rand(4, 3)
        out = run_graph(R.matmul, [a, w], [("n", 4), (4, 3)])
        np.testing.assert_allclose(out, a @ w, rtol=1e-5, atol=1e-5)
        out = run_graph(lambda x: R.sum(x, axis=0), [a], [("n", 4)])
        np.testing.assert_allclose(out, a.sum(0), rtol=1e-5, atol=1e-5)
        out = run_graph(R.flatten, [a], [("n", 4)])
        np.testing.assert_array_equal(out, a.ravel())
        out = run_graph(lambda x: R.concat([x, x], axis=0), [a], [("n", 4)])
        np.testing.assert_array_equal(out, np.concatenate([a, a]))
