"""topi's diagonal/mask/index/window/scatter transforms (transform_more.py) against numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(1)


def run(ins, out, arrays):
    f = tvm.build(te.create_prim_func([*ins, out]), target="llvm")
    res = np.zeros(topi.get_const_tuple(out.shape), out.dtype)
    f["main"](*arrays, res)
    return res


def ph(arr, name="x"):
    return te.placeholder(arr.shape, str(arr.dtype), name=name)


def set_diags_ref(x, diag, lo, hi, align):
    """TensorFlow's matrix_set_diag rule, written out with loops."""
    out, (rows, cols) = x.copy(), x.shape
    lens = {d: min(rows + min(d, 0), cols - max(d, 0)) for d in range(lo, hi + 1)}
    max_len = max(lens.values())
    sup, sub = align.split("_")
    for d in range(lo, hi + 1):
        row = diag[hi - d] if lo != hi else diag
        pad = max_len - lens[d] if (sup if d >= 0 else sub) == "RIGHT" and lo != hi else 0
        for t in range(lens[d]):
            r, c = (t, t + d) if d >= 0 else (t - d, t)
            out[r, c] = row[t + pad]
    return out


@pytest.mark.parametrize("k,align,dshape", [
    (1, "RIGHT_LEFT", (4,)), (-2, "RIGHT_LEFT", (2,)), ((-1, 2), "RIGHT_LEFT", (4, 4)),
    ((-2, 1), "LEFT_RIGHT", (4, 4))])
def test_matrix_set_diag(k, align, dshape):
    x = RNG.standard_normal((4, 5)).astype("float32")
    d = RNG.standard_normal(dshape).astype("float32")
    lo, hi = (k, k) if isinstance(k, int) else k
    X, D = ph(x), ph(d, "d")
    got = run([X, D], topi.matrix_set_diag(X, D, k, align), [x, d])
    np.testing.assert_array_equal(got, set_diags_ref(x, d, lo, hi, align))


def test_sequence_mask_both_axes():
    x = RNG.standard_normal((5, 3, 2)).astype("float32")
    lens = np.array([1, 5, 3], "int32")
    X, L = ph(x), ph(lens, "lens")
    ref = x.copy()
    for b, n in enumerate(lens):
        ref[n:, b] = -1.0
    np.testing.assert_array_equal(run([X, L], topi.sequence_mask(X, L, -1.0, 0), [x, lens]), ref)
    xt = np.ascontiguousarray(x.transpose(1, 0, 2))
    XT = ph(xt)
    np.testing.assert_array_equal(run([XT, L], topi.sequence_mask(XT, L, -1.0, 1), [xt, lens]),
                                  ref.transpose(1, 0, 2))
    with pytest.raises(ValueError, match="axis"):
        topi.sequence_mask(X, L, 0, 2)


def test_unravel_index_vector_and_scalar():
    shape = np.array([3, 4, 5], "int64")
    idx = np.array([0, 7, 59, 23], "int64")
    S, Ix = ph(shape, "s"), ph(idx, "i")
    np.testing.assert_array_equal(run([Ix, S], topi.unravel_index(Ix, S), [idx, shape]),
                                  np.array(np.unravel_index(idx, shape)))
    one = np.array(31, "int64")
    One = ph(one, "o")
    np.testing.assert_array_equal(run([One, S], topi.unravel_index(One, S), [one, shape]),
                                  np.array(np.unravel_index(31, shape)))


def test_sliding_window():
    x = RNG.standard_normal((2, 7, 6)).astype("float32")
    X = ph(x)
    got = run([X], topi.sliding_window(X, 1, [3, 2], [2, 2]), [x])
    ref = np.lib.stride_tricks.sliding_window_view(x, (3, 2), axis=(1, 2))[:, ::2, ::2]
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted(right):
    seq = np.sort(RNG.integers(0, 10, (2, 6)), axis=1).astype("float32")
    vals = RNG.integers(-1, 11, (2, 5)).astype("float32")
    Sq, V = ph(seq, "s"), ph(vals, "v")
    got = run([Sq, V], topi.searchsorted(Sq, V, right), [seq, vals])
    side = "right" if right else "left"
    np.testing.assert_array_equal(got, [np.searchsorted(seq[r], vals[r], side) for r in range(2)])


def test_strided_set_and_slice_scatter():
    a = RNG.standard_normal((6, 5)).astype("float32")
    v = RNG.standard_normal((2, 2)).astype("float32")
    A, V = ph(a, "a"), ph(v, "v")
    ref = a.copy()
    ref[1:5:2, 0:4:3] = v
    np.testing.assert_array_equal(run([A, V], topi.strided_set(A, V, [1, 0], [5, 4], [2, 3]),
                                      [a, v]), ref)
    s = RNG.standard_normal((6, 2)).astype("float32")
    Sr = ph(s, "s")
    ref = a.copy()
    ref[:, 1:5:2] = s
    np.testing.assert_array_equal(run([A, Sr], topi.slice_scatter(A, Sr, 1, 5, 2, 1), [a, s]),
                                  ref)


def test_index_helpers_and_const_vector():
    mask = te.compute((10,), lambda n: topi.within_index(1, 8, 3, n), name="m")
    np.testing.assert_array_equal(run([], mask, []), [n in (1, 4, 7) for n in range(10)])
    pos = te.compute((10,), lambda n: topi.make_idx(1, 8, 3, -1, n), name="p")
    np.testing.assert_array_equal(run([], pos, []), [(n - 1) // 3 if 1 <= n < 8 else -1
                                                    for n in range(10)])
    vec = np.array([3.5, -1.0, 2.0], "float32")
    np.testing.assert_array_equal(run([], topi.const_vector(vec), []), vec)
    c = te.compute((5,), lambda n: topi.ceil_log2(n + 1), name="c")
    np.testing.assert_array_equal(run([], c, []), np.ceil(np.log2(np.arange(1, 6))))


def test_layout_transform_blocks_pads_and_back():
    x = np.arange(36, dtype="float32").reshape(1, 6, 3, 2)
    X = ph(x)
    blocked = topi.layout_transform(X, "NCHW", "NCHW4c")
    assert topi.get_const_tuple(blocked.shape) == (1, 2, 3, 2, 4)
    padded = np.concatenate([x, np.zeros((1, 2, 3, 2), "float32")], axis=1)
    ref = padded.reshape(1, 2, 4, 3, 2).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(run([X], blocked, [x]), ref)
    nhwc = run([X], topi.layout_transform(X, "NCHW", "NHWC"), [x])
    np.testing.assert_array_equal(nhwc, x.transpose(0, 2, 3, 1))
    y = np.ascontiguousarray(ref)
    Y = ph(y, "y")
    back = run([Y], topi.layout_transform(Y, "NCHW4c", "NCHW"), [y])
    np.testing.assert_array_equal(back, padded)
    with pytest.raises(ValueError, match="same axes"):
        topi.layout_transform(X, "NCHW", "NCDW")


def test_fixed_point_multiply_rounds_half_up():
    x = np.array([-1000, -7, -3, 0, 3, 7, 1000, 123456, -99999], "int32")
    X = ph(x)
    for m, s in ((1395864371, -1), (1717986918, -3), (1073741824, 0)):
        got = run([X], topi.fixed_point_multiply(X, m, s), [x])
        total = 31 - s
        ref = [(int(v) * m + (1 << (total - 1))) >> total for v in x]
        np.testing.assert_array_equal(got, ref)


def test_sparse_to_dense_and_adv_index():
    idx = np.array([[0, 1], [2, 3], [1, 0]], "int64")
    vals = np.array([5.0, 6.0, 7.0], "float32")
    Ix, Vv = ph(idx, "i"), ph(vals, "v")
    got = run([Ix, Vv], topi.sparse_to_dense(Ix, (3, 4), Vv, -1.0), [idx, vals])
    ref = np.full((3, 4), -1.0, "float32")
    ref[idx[:, 0], idx[:, 1]] = vals
    np.testing.assert_array_equal(got, ref)
    flat = np.array([4, 1], "int32")
    Fl = ph(flat, "f")
    one = np.array(9.0, "float32")
    On = ph(one, "o")
    np.testing.assert_array_equal(run([Fl, On], topi.sparse_to_dense(Fl, (6,), On), [flat, one]),
                                  [0, 9, 0, 0, 9, 0])
    x = RNG.standard_normal((4, 3)).astype("float32")
    rows = np.array([[3, 0], [1, 1]], "int64")
    X, Rw = ph(x), ph(rows, "r")
    np.testing.assert_array_equal(run([X, Rw], topi.adv_index(X, [Rw]), [x, rows]), x[rows])


@pytest.mark.parametrize("inverse", [False, True])
def test_dft_matches_numpy_fft(inverse):
    re = RNG.standard_normal((2, 6)).astype("float32")
    im = RNG.standard_normal((2, 6)).astype("float32")
    Re, Im = ph(re, "re"), ph(im, "im")
    out_re, out_im = topi.dft(Re, Im, inverse)
    f = tvm.build(te.create_prim_func([Re, Im, out_re, out_im]), target="llvm")
    got_re, got_im = np.zeros_like(re), np.zeros_like(im)
    f["main"](re, im, got_re, got_im)
    ref = (np.fft.ifft if inverse else np.fft.fft)(re + 1j * im, axis=-1)
    np.testing.assert_allclose(got_re, ref.real, atol=1e-5)
    np.testing.assert_allclose(got_im, ref.imag, atol=1e-5)
    assert topi.DataTypeCode is tvm.runtime.DataTypeCode


def test_dynamic_strided_slice_bounds_from_tensors():
    x = np.arange(30, dtype="float32").reshape(6, 5)
    X = ph(x)
    b, e, s = (ph(np.zeros(2, "int64"), n) for n in "bes")
    out = topi.dynamic_strided_slice(X, b, e, s, (2, 2))
    args = [np.array([-5, 4], "int64"), np.array([5, 0], "int64"), np.array([2, -2], "int64")]
    np.testing.assert_array_equal(run([X, b, e, s], out, [x, *args]), x[-5:5:2, 4:0:-2])
