"""slice_scatter, index_tensor, index_put (te computes) and nonzero, unique,
dynamic_strided_slice (packed functions, data-dependent shapes) against numpy
(ir/ops/scatter_set.py)."""

import numpy as np
import pytest
from op_helpers import RNG, rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.script import relax as RS

R = relax.op


@pytest.mark.parametrize("start,end,step,axis", [(0, 3, 2, 1), (1, 4, 1, 0), (2, 5, 3, -1)])
def test_slice_scatter(start, end, step, axis):
    x = rand(5, 6)
    sl = [slice(None)] * 2
    sl[axis] = slice(start, end, step)
    src = rand(*x[tuple(sl)].shape, lo=5, hi=6)
    ref = x.copy()
    ref[tuple(sl)] = src
    out = run_graph(lambda a, b: R.slice_scatter(a, b, start, end, step, axis=axis), [x, src])
    np.testing.assert_array_equal(out, ref)


def test_index_tensor_broadcasts_and_wraps_negative_indices():
    x = rand(4, 5, 3)
    i = np.array([[0], [3], [-1]], "int64")
    j = np.array([1, -2, 4, 0], "int64")
    out = run_graph(lambda a, p, q: R.index_tensor(a, (p, q)), [x, i, j])
    np.testing.assert_array_equal(out, x[i, j])
    assert out.shape == (3, 4, 3)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    x = rand(3, 4)
    i = np.array([0, 2, 2, -1, 0], "int64")
    j = np.array([1, 3, 3, 0, 1], "int64")
    v = rand(5, lo=10, hi=20)
    ref = x.copy()
    if accumulate:
        np.add.at(ref, (i, j), v)
    else:
        ref[i, j] = v  # NOTE: numpy keeps the last write of a repeated index, as we do
    out = run_graph(lambda a, p, q, w: R.index_put(a, (p, q), w, accumulate=accumulate),
                    [x, i, j, v])
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_nonzero_and_unique():
    x = np.array([[0, 3, 3], [5, 0, 1]], "int32")
    np.testing.assert_array_equal(run_graph(R.nonzero, [x]), np.array(np.nonzero(x)))
    np.testing.assert_array_equal(run_graph(R.unique, [x]), np.unique(x))
    vals, first, inverse, counts = run_graph(
        lambda a: R.unique(a, sorted=False, return_index=True, return_inverse=True,
                           return_counts=True), [x])
    flat = x.ravel()
    order = [v for k, v in enumerate(flat) if v not in flat[:k]]
    np.testing.assert_array_equal(vals, order)
    np.testing.assert_array_equal(first, [list(flat).index(v) for v in order])
    np.testing.assert_array_equal(vals[inverse], flat)
    np.testing.assert_array_equal(counts, [(flat == v).sum() for v in order])


def test_dynamic_strided_slice():
    x = RNG.integers(0, 100, (5, 6)).astype("float32")
    b, e, s = (np.array(v, "int64") for v in ([4, 0], [0, 6], [-2, 2]))
    out = run_graph(R.dynamic_strided_slice, [x, b, e, s])
    np.testing.assert_array_equal(out, x[4:0:-2, 0:6:2])


def test_printed_and_parsed_back():
    text = roundtrip(lambda x, i: R.index_tensor(x, (i, i)), [(2, 3), (4,)],
                     ["float32", "int64"])
    assert "R.index_tensor(x0, (x1, x1))" in text
    text = roundtrip(lambda x, v, i: R.index_put(x, (i, i), v), [(3, 3), (4,), (4,)],
                     ["float32", "float32", "int64"])
    assert "R.index_put(x0, (x2, x2), x1, accumulate=False)" in text
    assert "R.nonzero(x0)" in roundtrip(R.nonzero, [(2, 3)])
    assert "R.unique(x0, " in roundtrip(R.unique, [(2, 3)])


def test_struct_info_and_errors():
    x = relax.Var("x", RS.Tensor((5, 6), "float32"))
    src = relax.Var("s", RS.Tensor((5, 2), "float32"))
    assert R.slice_scatter(x, src, 0, 6, 3, axis=1).struct_info == RS.Tensor((5, 6), "float32")
    with pytest.raises(ValueError, match=r"slice_scatter: src has shape \(5, 2\); slice 0:6:2"):
        R.slice_scatter(x, src, 0, 6, 2, axis=1)
    f = relax.Var("f", RS.Tensor((4,), "float32"))
    with pytest.raises(ValueError, match=r"index_tensor: indices\[0\] must be an integer"):
        R.index_tensor(x, (f,))
    i = relax.Var("i", RS.Tensor((4,), "int64"))
    with pytest.raises(ValueError, match="index_put: needs one index tensor per dim"):
        R.index_put(x, (i,), f)
    assert R.unique(x, return_counts=True).struct_info == RS.Tuple(
        RS.Tensor(ndim=1, dtype="float32"), RS.Tensor(ndim=1, dtype="int64"))
    with pytest.raises(ValueError, match="dynamic_strided_slice: begin has"):
        R.dynamic_strided_slice(x, i, i, i)
