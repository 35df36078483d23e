"""The 3-d R.nn operators (ir/ops/nn3d.py, topi/nn3d.py): struct info, printed form, and
values against torch's 3-d convolutions and pools."""

import numpy as np
import pytest
import torch
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError

NN = relax.op.nn
F = torch.nn.functional


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(a)


def test_conv3d_matches_torch_with_stride_padding_dilation_groups():
    x = RNG.standard_normal((1, 4, 6, 7, 5)).astype("float32")
    w = RNG.standard_normal((6, 2, 3, 2, 3)).astype("float32")
    out = run_graph(lambda a, b: NN.conv3d(a, b, strides=(1, 2, 1), padding=(1, 0, 2),
                                           dilation=(2, 1, 1), groups=2), [x, w])
    ref = F.conv3d(_t(x), _t(w), stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1),
                   groups=2).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_conv3d_transpose_matches_torch():
    x = RNG.standard_normal((1, 3, 3, 4, 2)).astype("float32")
    w = RNG.standard_normal((3, 2, 2, 3, 2)).astype("float32")
    out = run_graph(lambda a, b: NN.conv3d_transpose(a, b, strides=(2, 1, 2), padding=(0, 1, 0),
                                                     output_padding=(1, 0, 0)), [x, w])
    ref = F.conv_transpose3d(_t(x), _t(w), stride=(2, 1, 2), padding=(0, 1, 0),
                             output_padding=(1, 0, 0)).numpy()
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("include_pad", [True, False])
def test_pools_match_torch(include_pad):
    x = RNG.standard_normal((2, 3, 5, 6, 7)).astype("float32")
    mx = run_graph(lambda a: NN.max_pool3d(a, (2, 3, 2), (2, 1, 2), (1, 1, 0)), [x])
    np.testing.assert_array_equal(mx, F.max_pool3d(_t(x), (2, 3, 2), (2, 1, 2),
                                                   (1, 1, 0)).numpy())
    avg = run_graph(lambda a: NN.avg_pool3d(a, (3, 2, 3), (1, 2, 2), (1, 1, 1),
                                            count_include_pad=include_pad), [x])
    ref = F.avg_pool3d(_t(x), (3, 2, 3), (1, 2, 2), (1, 1, 1), count_include_pad=include_pad)
    np.testing.assert_allclose(avg, ref.numpy(), rtol=1e-5, atol=1e-6)


def test_adaptive_avg_pool3d_matches_torch_with_uneven_windows():
    x = RNG.standard_normal((1, 2, 5, 7, 4)).astype("float32")
    out = run_graph(lambda a: NN.adaptive_avg_pool3d(a, (2, 3, 4)), [x])
    ref = F.adaptive_avg_pool3d(_t(x), (2, 3, 4)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_struct_info_symbolic_and_printed_form():
    text = roundtrip(lambda a, b: NN.conv3d(a, b, padding=1), [("n", 4, 8, 8, 8),
                                                              (5, 4, 3, 3, 3)])
    assert "R.nn.conv3d(" in text and 'R.Tensor(("n", 5, 8, 8, 8)' in text
    text = roundtrip(lambda a: NN.max_pool3d(a, 2, 2), [(1, 3, 8, 6, 4)])
    assert "R.Tensor((1, 3, 4, 3, 2)" in text
    roundtrip(lambda a: NN.adaptive_avg_pool3d(a, 1), [(1, 3, 8, 6, 4)])


def test_bad_inputs_are_located():
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 4, 4, 4), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((2, 3, 3, 3, 3), "float32"))
    with pytest.raises(OpError, match=r"R.nn.conv3d: data has \(4,\) channels"):
        NN.conv3d(x, w)
    flat = relax.Var("y", relax.TensorStructInfo((1, 4, 4, 4), "float32"))
    with pytest.raises(OpError, match="R.nn.max_pool3d: data .NCDHW. must be 5-d"):
        NN.max_pool3d(flat)
