"""`topi.nn.pooling` (TVM's signatures: pool type by name, a layout string) against numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.nn.pooling import global_pool, pool2d

X_NP = np.arange(2 * 3 * 5 * 6, dtype="float32").reshape(2, 3, 5, 6) % 7 - 3


def run(x, out, value):
    f = tvm.build(te.create_prim_func([x, out]), target="llvm")
    buf = tvm.nd.array(np.zeros([int(d) for d in out.shape], out.dtype))
    f(tvm.nd.array(value), buf)
    return buf.numpy()


def windows(v, k, s, pad, fill):
    """numpy: each (kh, kw) window of the NCHW array `v`, padded with `fill`."""
    t, lft, b, r = pad
    p = np.pad(v, ((0, 0), (0, 0), (t, b), (lft, r)), constant_values=fill)
    oh, ow = (p.shape[2] - k[0]) // s[0] + 1, (p.shape[3] - k[1]) // s[1] + 1
    return np.stack([[p[:, :, y * s[0]:y * s[0] + k[0], x * s[1]:x * s[1] + k[1]]
                      for x in range(ow)] for y in range(oh)])  # oh, ow, n, c, kh, kw


def test_max_pool_nchw() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    out = pool2d(x, (2, 3), (2, 2), (1, 1), (1, 0, 0, 1), "max")
    w = windows(X_NP, (2, 3), (2, 2), (1, 0, 0, 1), -np.inf)
    want = w.max(axis=(4, 5)).transpose(2, 3, 0, 1)
    np.testing.assert_array_equal(run(x, out, X_NP), want)


@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool_counts_padding_as_asked(include_pad) -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    out = pool2d(x, (2, 2), (1, 1), (1, 1), (1, 1, 0, 0), "avg",
                 count_include_pad=include_pad)
    total = windows(X_NP, (2, 2), (1, 1), (1, 1, 0, 0), 0).sum(axis=(4, 5))
    ones = windows(np.ones_like(X_NP), (2, 2), (1, 1), (1, 1, 0, 0), 0).sum(axis=(4, 5))
    want = (total / (4 if include_pad else ones)).transpose(2, 3, 0, 1)
    np.testing.assert_allclose(run(x, out, X_NP), want, rtol=1e-6)


def test_nhwc_layout_pools_the_middle_axes() -> None:
    nhwc = X_NP.transpose(0, 2, 3, 1).copy()
    x = te.placeholder(nhwc.shape, "float32", name="x")
    out = pool2d(x, (3, 3), (1, 1), (1, 1), (0, 0, 0, 0), "max", layout="NHWC")
    want = windows(X_NP, (3, 3), (1, 1), (0, 0, 0, 0), 0).max(axis=(4, 5))
    np.testing.assert_array_equal(run(x, out, nhwc), want.transpose(2, 0, 1, 3))


def test_global_pool_reduces_height_and_width() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    got = run(x, global_pool(x, "avg"), X_NP)
    np.testing.assert_allclose(got, X_NP.mean(axis=(2, 3), keepdims=True), rtol=1e-6)


def test_unknown_layout_or_type_is_refused() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    with pytest.raises(ValueError, match="layouts"):
        pool2d(x, (2, 2), (1, 1), (1, 1), (0, 0, 0, 0), "max", layout="NCHW16c")
    with pytest.raises(ValueError, match="pool_type"):
        global_pool(x, "min")


def adaptive_numpy(v, out, reduce):
    """numpy: output cell (y, x) reduces rows [y*H//oh, ceil((y+1)*H/oh)), columns likewise."""
    h, w = v.shape[2:]
    res = np.zeros(v.shape[:2] + tuple(out), v.dtype)
    for y in range(out[0]):
        for x in range(out[1]):
            rows = slice(y * h // out[0], -(-(y + 1) * h // out[0]))
            cols = slice(x * w // out[1], -(-(x + 1) * w // out[1]))
            res[:, :, y, x] = reduce(v[:, :, rows, cols], axis=(2, 3))
    return res


@pytest.mark.parametrize("pool_type,reduce", [("avg", np.mean), ("max", np.max)])
def test_adaptive_pool_windows_overlap_as_tvm(pool_type, reduce) -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    got = run(x, topi.nn.adaptive_pool(x, [2, 4], pool_type=pool_type), X_NP)
    np.testing.assert_allclose(got, adaptive_numpy(X_NP, (2, 4), reduce), rtol=1e-6)


def test_global_pool_of_int8_builds() -> None:
    x = te.placeholder((1, 2, 4, 4), "int8", name="x")
    out = topi.nn.global_pool(x, "max")
    v = (np.arange(32, dtype="int8").reshape(1, 2, 4, 4) * 3) % 50
    np.testing.assert_array_equal(run(x, out, v), v.max(axis=(2, 3), keepdims=True))
