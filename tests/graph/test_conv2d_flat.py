"""The flat-vector conv rule (topi/conv2d_flat.py) for convs over narrow maps:
compiled kernels against a float64 numpy reference, and when the rule is (not) taken."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.conv2d_flat import conv2d_nchw_flat

RNG = np.random.default_rng(7)


def conv_ref(x, w, stride, pad, dil, groups):
    """float64 numpy: every window of the padded input, contracted per group."""
    kh, kw = w.shape[2:]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    win = np.lib.stride_tricks.sliding_window_view(
        xp, (dil[0] * (kh - 1) + 1, dil[1] * (kw - 1) + 1), axis=(2, 3))
    win = win[:, :, ::stride[0], ::stride[1], ::dil[0], ::dil[1]]
    cg, og = w.shape[1], w.shape[0] // groups
    return np.concatenate([np.einsum("ncyxij,fcij->nfyx", win[:, g * cg:(g + 1) * cg],
                                     w[g * og:(g + 1) * og].astype(np.float64))
                           for g in range(groups)], axis=1)


CASES = [  # x shape, w shape, stride, padding (top, left, bottom, right), dilation, groups
    ((1, 16, 7, 7), (24, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # ResNet's last stage
    ((2, 8, 2, 2), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # a CIFAR net's 2x2 maps
    ((1, 4, 5, 6), (8, 4, 3, 3), (1, 1), (0, 2, 1, 0), (1, 1), 1),  # asymmetric padding
    ((1, 4, 9, 5), (6, 4, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),  # dilated
    ((1, 8, 4, 4), (8, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),  # groups
    ((3, 5, 7, 7), (7, 5, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1x1, odd channels
    ((1, 8, 14, 14), (16, 8, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),  # ResNet's 14 -> 7
    ((2, 6, 13, 13), (8, 6, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),  # 1x1 shortcut, odd
    ((1, 3, 11, 10), (8, 3, 3, 3), (3, 2), (1, 0, 2, 1), (1, 1), 1),  # mixed strides
    ((1, 4, 13, 13), (8, 4, 3, 3), (2, 2), (2, 2, 2, 2), (2, 2), 1),  # strided and dilated
]


@pytest.mark.parametrize("xs,ws,stride,pad,dil,groups", CASES)
def test_flat_conv_matches_numpy(xs, ws, stride, pad, dil, groups) -> None:
    X = te.placeholder(xs, "float32", name="X")
    W = te.placeholder(ws, "float32", name="W")
    out = topi.nn.conv2d_nchw(X, W, stride, pad, dil, groups)
    assert out.op.body.__class__.__name__ != "Reduce"  # the flat rule's final copy
    lib = tvm.build(te.create_prim_func([X, W, out]), target="llvm")
    x, w = RNG.standard_normal(xs).astype("float32"), RNG.standard_normal(ws).astype("float32")
    ref = conv_ref(x, w, stride, pad, dil, groups)
    got = tvm.nd.array(np.zeros(ref.shape, "float32"))
    lib(tvm.nd.array(x), tvm.nd.array(w), got)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_wide_rows_and_depthwise_keep_the_row_rule() -> None:
    for xs, ws, groups in [((1, 4, 28, 28), (8, 4, 3, 3), 1), ((1, 8, 20, 20), (8, 4, 3, 3), 2),
                           ((1, 8, 7, 7), (8, 1, 3, 3), 8)]:
        X = te.placeholder(xs, "float32", name="X")
        W = te.placeholder(ws, "float32", name="W")
        assert conv2d_nchw_flat(X, W, (1, 1), (1, 1, 1, 1), (1, 1), groups, "float32") is None
