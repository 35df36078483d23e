"""Creators, masks and indexing operators against numpy."""

import numpy as np
import pytest
from op_helpers import rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops import OpError

R = relax.op


def _plus(make):
    """`make() + x`: a creator's result reaches the output through one input."""
    return lambda x: R.add(make(), x)


@pytest.mark.parametrize("make,ref,dtype", [
    (lambda: R.arange(6), np.arange(6), "int64"),
    (lambda: R.arange(2, 11, 3), np.arange(2, 11, 3), "int64"),
    (lambda: R.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25), "float32"),
    (lambda: R.arange(5, 0, -2), np.arange(5, 0, -2), "int64"),
])
def test_arange(make, ref, dtype):
    zero = np.zeros(ref.shape, dtype)
    np.testing.assert_allclose(run_graph(_plus(make), [zero]), ref, rtol=1e-6)


def test_creators_like():
    a = rand(3, 4)
    np.testing.assert_array_equal(run_graph(lambda x: R.full_like(x, 2.5), [a]),
                                  np.full_like(a, 2.5))
    np.testing.assert_array_equal(run_graph(R.zeros_like, [a], shapes=[("n", 4)]),
                                  np.zeros_like(a))
    out = run_graph(lambda x: R.ones_like(x, "int32"), [a])
    assert out.dtype == np.int32 and (out == 1).all()


@pytest.mark.parametrize("n,m,k", [(3, 3, 0), (3, 5, 1), (4, 2, -1)])
def test_eye(n, m, k):
    zero = np.zeros((n, m), "float32")
    np.testing.assert_array_equal(run_graph(_plus(lambda: R.eye(n, m, k)), [zero]),
                                  np.eye(n, m, k))
    np.testing.assert_array_equal(run_graph(lambda x: R.eye_like(x, k), [zero]),
                                  np.eye(n, m, k))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(k):
    a = rand(2, 3, 5)
    np.testing.assert_array_equal(run_graph(lambda x: R.tril(x, k), [a]), np.tril(a, k))
    np.testing.assert_array_equal(run_graph(lambda x: R.triu(x, k), [a], shapes=[(2, "n", 5)]),
                                  np.triu(a, k))


def test_flip_tile_repeat():
    a = rand(2, 3, 4)
    np.testing.assert_array_equal(run_graph(lambda x: R.flip(x, 1), [a]), np.flip(a, 1))
    np.testing.assert_array_equal(run_graph(lambda x: R.tile(x, (2, 1, 1, 3)), [a]),
                                  np.tile(a, (2, 1, 1, 3)))
    np.testing.assert_array_equal(run_graph(lambda x: R.repeat(x, 2, axis=2), [a]),
                                  np.repeat(a, 2, axis=2))
    np.testing.assert_array_equal(run_graph(lambda x: R.repeat(x, 3), [a]), np.repeat(a, 3))
    np.testing.assert_array_equal(run_graph(lambda x: R.flip(x, -1), [a], shapes=[("n", 3, 4)]),
                                  np.flip(a, -1))


def test_stack():
    a, b = rand(2, 3), rand(2, 3)
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(run_graph(lambda x, y: R.stack([x, y, x], axis), [a, b]),
                                      np.stack([a, b, a], axis))


def test_one_hot():
    ind = np.array([[0, 2], [3, 1]], "int32")
    out = run_graph(lambda i: R.one_hot(i, 5.0, -1.0, depth=4, axis=1), [ind])
    ref = np.where(np.arange(4)[None, :, None] == ind[:, None, :], 5.0, -1.0)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("axis,exclusive", [(0, False), (1, True), (None, False)])
def test_cumsum_cumprod(axis, exclusive):
    a = rand(3, 4, lo=0.5, hi=1.5)
    ref = np.cumsum(a, axis=axis)
    if exclusive:
        ref = ref - a
    np.testing.assert_allclose(run_graph(lambda x: R.cumsum(x, axis, exclusive=exclusive), [a]),
                               ref, rtol=1e-5)
    refp = np.cumprod(a, axis=axis)
    if exclusive:
        refp = refp / a
    np.testing.assert_allclose(run_graph(lambda x: R.cumprod(x, axis, exclusive=exclusive),
                                         [a]), refp, rtol=1e-5)
    ints = np.arange(12, dtype="int32").reshape(3, 4)
    np.testing.assert_array_equal(
        run_graph(lambda x: R.cumsum(x, 1, dtype="int64"), [ints], shapes=[("n", 4)]),
        np.cumsum(ints, 1))


def test_gather_elements_and_nd():
    a = rand(3, 4)
    ind = np.array([[0, 2, -1], [1, 0, 3]], "int64")
    out = run_graph(lambda x, i: R.gather_elements(x, i, axis=1), [a, ind])
    np.testing.assert_array_equal(out, np.take_along_axis(a[:2], ind % 4, axis=1))
    b = rand(2, 3, 4)
    nd = np.array([[1, 2], [0, 0], [1, -1]], "int64")
    np.testing.assert_array_equal(run_graph(R.gather_nd, [b, nd]),
                                  b[nd[:, 0], nd[:, 1] % 3])
    nd1 = np.array([[2], [0]], "int64")  # batch_dims=1: per batch row
    np.testing.assert_array_equal(run_graph(lambda x, i: R.gather_nd(x, i, 1), [b, nd1]),
                                  np.stack([b[0, 2], b[1, 0]]))


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
def test_scatter_elements(reduction):
    a = rand(3, 4)
    ind = np.array([[1, 0], [2, 2]], "int64")
    upd = rand(2, 2)
    ref = a.copy()
    fold = {"update": lambda o, u: u, "add": np.add, "mul": np.multiply, "min": np.minimum,
            "max": np.maximum}[reduction]
    for i in range(2):
        for j in range(2):
            ref[ind[i, j], j] = fold(ref[ind[i, j], j], upd[i, j])
    out = run_graph(lambda x, i, u: R.scatter_elements(x, i, u, 0, reduction), [a, ind, upd])
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_sort_argsort_topk():
    a = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 7.0, 0.5]], "float32")
    np.testing.assert_array_equal(run_graph(R.sort, [a]), np.sort(a, -1))
    np.testing.assert_array_equal(run_graph(lambda x: R.sort(x, 0, True), [a]),
                                  -np.sort(-a, 0))
    np.testing.assert_array_equal(run_graph(R.argsort, [a]), np.argsort(a, -1, kind="stable"))
    vals, idx = run_graph(lambda x: R.topk(x, 2), [a])
    np.testing.assert_array_equal(vals, -np.sort(-a, -1)[:, :2])
    np.testing.assert_array_equal(idx, np.argsort(-a, -1, kind="stable")[:, :2])
    small = run_graph(lambda x: R.topk(x, 1, largest=False, ret_type="values"), [a])
    np.testing.assert_array_equal(small, a.min(-1, keepdims=True))


@pytest.mark.parametrize("build,shapes,dtypes", [
    (lambda x: R.tril(x, 1), [(3, "n")], None),
    (lambda x: R.cumsum(x, 1, exclusive=True), [(3, 4)], None),
    (lambda x: R.topk(x, 2, ret_type="indices", dtype="int64"), [(3, 4)], None),
    (lambda x, i: R.scatter_elements(x, i, x, 1, "add"), [(2, 2), (2, 2)],
     ["float32", "int64"]),
    (lambda x, y: R.stack((x, y), 1), [(2, 3), (2, 3)], None),
    (lambda i: R.one_hot(i, 1.0, 0.0, 5), [(3,)], ["int32"]),
    (lambda x: R.tile(x, (2, 2)), [(2, 3)], None),
    (lambda x: R.eye_like(x, 1), [(3, 3)], None),
], ids=["tril", "cumsum", "topk", "scatter", "stack", "one_hot", "tile", "eye_like"])
def test_roundtrip(build, shapes, dtypes):
    roundtrip(build, shapes, dtypes)


def test_errors():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(OpError, match=r"R.gather_nd: indices must be integers"):
        R.gather_nd(x, x)
    with pytest.raises(OpError, match=r"k=5 is out of range for an axis of 3"):
        R.topk(x, 5)
    with pytest.raises(OpError, match=r"item 1 has shape \(3, 2\)"):
        R.stack([x, relax.Var("y", relax.TensorStructInfo((3, 2), "float32"))])
    with pytest.raises(OpError, match="step must not be 0"):
        R.arange(0, 4, 0)


@pytest.mark.parametrize("mode", ["clip", "wrap", "nan"])
def test_take_modes_and_prim_index(mode):
    a = rand(3, 4)
    ind = np.array([0, 2, 4, -1], "int64")
    out = run_graph(lambda x, i: R.take(x, i, axis=1, mode=mode), [a, ind])
    if mode == "nan":
        ref = np.where((ind >= 0) & (ind < 4), np.take(a, np.clip(ind, 0, 3), axis=1), np.nan)
    else:
        ref = np.take(a, ind, axis=1, mode=mode)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(run_graph(lambda x: R.take(x, 2, axis=0), [a]), a[2])
