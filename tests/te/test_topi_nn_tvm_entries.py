"""`topi.nn.conv2d`, `topi.nn.upsampling` and `topi.nn.pool2d` with TVM's signatures, against
numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import te, topi

RNG = np.random.default_rng(0)
X_NP = RNG.standard_normal((1, 3, 6, 5)).astype("float32")
W_NP = RNG.standard_normal((4, 3, 3, 3)).astype("float32")


def run(inputs, out, values):
    f = tvm.build(te.create_prim_func([*inputs, out]), target="llvm")
    buf = tvm.nd.array(np.zeros([int(d) for d in out.shape], out.dtype))
    f(*[tvm.nd.array(v) for v in values], buf)
    return buf.numpy()


def conv_nchw(x, w, pad):
    p = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    oh, ow = p.shape[2] - kh + 1, p.shape[3] - kw + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow), "float32")
    for y in range(oh):
        for xx in range(ow):
            out[:, :, y, xx] = np.einsum("nchw,ochw->no", p[:, :, y:y + kh, xx:xx + kw], w)
    return out


def test_conv2d_takes_int_stride_padding_dilation() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    w = te.placeholder(W_NP.shape, "float32", name="w")
    out = topi.nn.conv2d(x, w, strides=1, padding=1, dilation=1)
    np.testing.assert_allclose(run([x, w], out, [X_NP, W_NP]), conv_nchw(X_NP, W_NP, 1),
                               rtol=1e-5, atol=1e-5)


def test_conv2d_nhwc_defaults_to_an_hwio_kernel() -> None:
    x_nhwc, w_hwio = X_NP.transpose(0, 2, 3, 1).copy(), W_NP.transpose(2, 3, 1, 0).copy()
    x = te.placeholder(x_nhwc.shape, "float32", name="x")
    w = te.placeholder(w_hwio.shape, "float32", name="w")
    out = topi.nn.conv2d(x, w, 1, 0, 1, data_layout="NHWC")
    want = conv_nchw(X_NP, W_NP, 0).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(run([x, w], out, [x_nhwc, w_hwio]), want, rtol=1e-5, atol=1e-5)


def test_upsampling_nearest_repeats_each_pixel() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    out = topi.nn.upsampling(x, scale_h=2.0, scale_w=3.0)
    want = X_NP.repeat(2, axis=2).repeat(3, axis=3)
    np.testing.assert_array_equal(run([x], out, [X_NP]), want)


def test_pool2d_is_tvms_signature() -> None:
    x = te.placeholder(X_NP.shape, "float32", name="x")
    out = topi.nn.pool2d(x, kernel=(2, 2), stride=(2, 2), dilation=(1, 1),
                         padding=(0, 0, 0, 0), pool_type="max")
    want = X_NP[:, :, :6, :4].reshape(1, 3, 3, 2, 2, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(run([x], out, [X_NP]), want)
