"""quantize / dequantize, bucketize, median and multinomial_from_uniform (ir/ops/qdq_search.py)
against numpy, printed as TVM 0.27 prints them, and their struct-info errors."""

import numpy as np
import pytest
from op_helpers import RNG, rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.script import relax as RS

R = relax.op


def _quantize_ref(x, scale, zp, lo, hi):
    return np.clip(np.round(x / scale) + zp, lo, hi)


def test_quantize_per_tensor_and_back():
    x = np.array([[0.1, -1.3, 2.6, 0.7, 70.0], [1.1, -2.2, 3.3, -0.6, -90.0]], "float32")
    scale, zp = np.array(0.5, "float32"), np.array(3, "int8")
    q = run_graph(lambda a, s, z: R.quantize(a, s, z, out_dtype="int8"), [x, scale, zp])
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q, _quantize_ref(x, 0.5, 3, -128, 127).astype("int8"))
    d = run_graph(lambda a, s, z: R.dequantize(a, s, z), [q, scale, zp])
    np.testing.assert_allclose(d, (q.astype("int32") - 3) * 0.5)


def test_quantize_per_channel_uint8():
    x = rand(3, 4, hi=4)
    scale = np.array([0.1, 0.2, 0.3], "float32")
    zp = np.array([0, 10, 128], "uint8")
    q = run_graph(lambda a, s, z: R.quantize(a, s, z, axis=0, out_dtype="uint8"),
                  [x, scale, zp])
    ref = _quantize_ref(x, scale[:, None], zp[:, None].astype("float32"), 0, 255)
    np.testing.assert_array_equal(q, ref.astype("uint8"))
    d = run_graph(lambda a, s, z: R.dequantize(a, s, z, axis=0, out_dtype="float32"),
                  [q, scale, zp])
    np.testing.assert_allclose(d, (q.astype("int32") - zp[:, None]) * scale[:, None],
                               rtol=1e-6)


@pytest.mark.parametrize("right,out_int32", [(False, False), (True, True)])
def test_bucketize_matches_searchsorted(right, out_int32):
    bnd = np.array([-1.0, 0.0, 0.5, 2.0], "float32")
    x = np.concatenate([rand(20, lo=-3, hi=3), bnd]).reshape(4, 6)  # ties on boundaries too
    out = run_graph(lambda a, b: R.bucketize(a, b, out_int32=out_int32, right=right), [x, bnd])
    assert out.dtype == (np.int32 if out_int32 else np.int64)
    np.testing.assert_array_equal(out, np.searchsorted(bnd, x, side="right" if right else
                                                       "left"))


def _lower_median(x, axis):
    order = np.argsort(x, axis=axis, kind="stable")
    mid = (x.shape[axis] - 1) // 2
    idx = np.take(order, [mid], axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx


@pytest.mark.parametrize("shape,axis", [((3, 6), 1), ((5, 4), 0), ((2, 3, 5), -1)])
def test_median_values_and_indices(shape, axis):
    x = RNG.permutation(int(np.prod(shape))).reshape(shape).astype("float32")
    vals, idx = run_graph(lambda a: R.median(a, axis=axis), [x])
    ref_v, ref_i = _lower_median(x, axis)
    np.testing.assert_array_equal(vals, ref_v.squeeze(axis))
    np.testing.assert_array_equal(idx, ref_i.squeeze(axis))
    kept, _ = run_graph(lambda a: R.median(a, axis=axis, keepdims=True), [x])
    np.testing.assert_array_equal(kept, ref_v)


def test_median_of_every_element():
    x = rand(4, 5)
    out = run_graph(lambda a: R.median(a), [x])
    assert out.shape == () and out == np.sort(x.ravel())[(x.size - 1) // 2]


def test_multinomial_from_uniform_against_cumsum():
    prob = RNG.uniform(0.01, 1, (3, 6)).astype("float32")
    prob /= prob.sum(axis=1, keepdims=True)
    u = RNG.uniform(0, 1, (5, 1)).astype("float32")
    u[4, 0] = 0.99999
    rows = np.array([[0], [2], [1], [1], [2]], "int64")
    out = run_graph(lambda p, a, i: R.multinomial_from_uniform(p, a, i), [prob, u, rows])
    cum = np.cumsum(prob, axis=1)
    ref = [min(int((cum[r] <= s).sum()), 5) for r, s in zip(rows[:, 0], u[:, 0])]
    np.testing.assert_array_equal(out[:, 0], ref)


def test_printed_as_tvm_prints():
    text = roundtrip(lambda x, b: R.bucketize(x, b, out_int32=False, right=False),
                     [(2, 3), (4,)])
    assert "R.bucketize(x0, x1, out_int32=False, right=False)" in text
    text = roundtrip(lambda x, s, z: R.quantize(x, s, z, out_dtype="int8"), [(2, 3), (), ()],
                     ["float32", "float32", "int8"])
    assert "R.quantize(x0, x1, x2, out_dtype=\"int8\", axis=-1)" in text
    assert "R.median(x0, axis=[1], keepdims=False)" in roundtrip(
        lambda x: R.median(x, axis=1), [(2, 3)])


def test_struct_info_errors():
    x = relax.Var("x", RS.Tensor((2, 3), "float32"))
    s3 = relax.Var("s", RS.Tensor((4,), "float32"))
    z = relax.Var("z", RS.Tensor((), "int8"))
    with pytest.raises(ValueError, match=r"quantize: scale has shape \(4,\)"):
        R.quantize(x, s3, z, axis=0)
    with pytest.raises(ValueError, match="quantize: out_dtype must be one of"):
        R.quantize(x, z, z, out_dtype="float32")
    with pytest.raises(ValueError, match="bucketize: boundaries must be a 1-d tensor"):
        R.bucketize(x, x)
    with pytest.raises(ValueError, match="median: takes one axis or none"):
        R.median(x, axis=[0, 1])
    with pytest.raises(ValueError, match="multinomial_from_uniform: sample_indices must hold"):
        R.multinomial_from_uniform(x, x, x)


def test_scalar_input_takes_scalar_parameters():
    x = relax.Var("x", RS.Tensor((), "float32"))
    s1 = relax.Var("s", RS.Tensor((1,), "float32"))
    s2 = relax.Var("s2", RS.Tensor((2,), "float32"))
    z = relax.Var("z", RS.Tensor((), "uint8"))
    bb = relax.BlockBuilder()
    assert bb.normalize(R.quantize(x, s1, z, 0, "uint8")).ty == RS.Tensor((), "uint8")
    with pytest.raises(ValueError, match=r"scale has shape \(2,\); a scalar input needs"):
        R.quantize(x, s2, z, 0, "uint8")


def test_multinomial_samples_take_uniform_samples_rank():
    """The result has uniform_sample's shape, or only its rank when that is all that is known."""
    idx = relax.Var("s", RS.Tensor((6, 1), "int64"))
    known = relax.Var("u", RS.Tensor((6, 1), "float32"))
    rank2 = relax.Var("u", RS.Tensor(ndim=2, dtype="float32"))
    unknown = relax.Var("u", RS.Tensor(dtype="float32"))
    prob = relax.Var("p", RS.Tensor(ndim=2, dtype="float32"))
    bb = relax.BlockBuilder()
    out = bb.normalize(R.multinomial_from_uniform(prob, known, idx, dtype="int32")).struct_info
    assert [int(d) for d in out.shape] == [6, 1] and out.dtype == "int32"
    out = bb.normalize(R.multinomial_from_uniform(prob, rank2, idx)).struct_info
    assert out.shape is None and out.ndim == 2 and out.dtype == "int64"
    out = bb.normalize(R.multinomial_from_uniform(prob, unknown, idx)).struct_info
    assert out.ndim == -1
