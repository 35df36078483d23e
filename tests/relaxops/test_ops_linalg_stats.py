"""einsum, outer, linear, variance/std, meshgrid, collapse_sum_*, masked_fill against numpy."""

import numpy as np
import pytest
from op_helpers import rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops import OpError
from tvmlite.ir.ops.linalg_stats import linear, masked_fill
from tvmlite.script import relax as RS

R = relax.op


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(3, 3)]), ("ij->", [(2, 3)]), ("i,j", [(3,), (4,)]), ("ij,ij->ij", [(2, 3),
                                                                               (2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,ij->i", [(1, 4), (2, 4)]), ("ij,jk->ik", [(2, 1), (3, 4)])])  # extents of 1 broadcast
def test_einsum(subscripts, shapes):
    arrays = [rand(*s) for s in shapes]
    out = run_graph(lambda *xs: R.einsum(list(xs), subscripts), arrays)
    np.testing.assert_allclose(out, np.einsum(subscripts, *arrays), rtol=1e-5, atol=1e-6)


def test_einsum_symbolic():
    a, b = rand(5, 3), rand(3, 4)
    out = run_graph(lambda x, y: R.einsum((x, y), "ij,jk->ik"), [a, b],
                    shapes=[("n", 3), (3, 4)])
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)


def test_outer_and_linear():
    a, b = rand(3), rand(4)
    np.testing.assert_allclose(run_graph(R.outer, [a, b]), np.outer(a, b), rtol=1e-6)
    x, w, bias = rand(2, 5), rand(3, 5), rand(3)
    np.testing.assert_allclose(run_graph(lambda p, q, r: linear(p, q, r), [x, w, bias]),
                               x @ w.T + bias, rtol=1e-5)
    np.testing.assert_allclose(run_graph(lambda p, q: RS.linear(p, q), [x, w]), x @ w.T,
                               rtol=1e-5)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), ((0, 2), False)])
def test_variance_std(axis, keepdims):
    a = rand(3, 4, 5)
    np.testing.assert_allclose(run_graph(lambda x: R.variance(x, axis, keepdims), [a]),
                               np.var(a, axis=axis, keepdims=keepdims), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(run_graph(lambda x: R.std(x, axis, keepdims), [a]),
                               np.std(a, axis=axis, keepdims=keepdims), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    a, b, c = rand(3), rand(4), rand(2)
    outs = run_graph(lambda x, y, z: R.meshgrid([x, y, z], indexing), [a, b, c])
    for out, ref in zip(outs, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(out, ref)


def test_collapse_sum_and_masked_fill():
    a = rand(2, 3, 4)
    np.testing.assert_allclose(run_graph(lambda x: R.collapse_sum_to(x, (3, 1)), [a]),
                               a.sum(axis=(0, 2))[:, None], rtol=1e-5)
    t = rand(1, 4)
    np.testing.assert_allclose(run_graph(R.collapse_sum_like, [a, t]),
                               a.sum(axis=(0, 1))[None, :], rtol=1e-5)
    mask = a > 0
    np.testing.assert_array_equal(run_graph(lambda x, m: masked_fill(x, m, -1.0), [a, mask]),
                                  np.where(mask, -1.0, a))


@pytest.mark.parametrize("build,shapes", [
    (lambda x, y: R.einsum((x, y), "ij,jk->ik"), [(2, 3), (3, "n")]),
    (lambda x, y: R.outer(x, y), [(3,), (4,)]),
    (lambda x: R.std(x, 1, True), [(2, 3)]),
    (lambda x, y: R.meshgrid((x, y), "xy"), [(3,), (4,)]),
    (lambda x: R.collapse_sum_to(x, (3,)), [(2, 3)]),
], ids=["einsum", "outer", "std", "meshgrid", "collapse_sum_to"])
def test_roundtrip(build, shapes):
    roundtrip(build, shapes)


def test_errors():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((4, 5), "float32"))
    with pytest.raises(OpError, match="axis 'j' is 3 in one operand and 4 in operand 1"):
        R.einsum((x, y), "ij,jk->ik")
    with pytest.raises(OpError, match="name 1 operands, got 2"):
        R.einsum((x, y), "ij->i")
    with pytest.raises(OpError, match="x1 must be 1-d"):
        R.outer(x, y)
