"""R.vision.roi_pool (ir/ops/vision.py, topi/vision.py): struct info, printed form, and values
against a numpy loop of TVM's rule (rounded corners, floor/ceil bins, empty bins give 0)."""

import math

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax, tir
from tvmlite.ir.ops.base import OpError

V = relax.op.vision


def roi_pool_ref(x, rois, ph, pw, scale):
    out = np.zeros((len(rois), x.shape[1], ph, pw), x.dtype)
    height, width = x.shape[2:]
    for r, (b, *box) in enumerate(rois):
        sw, sh, ew, eh = (int(np.rint(np.float32(v) * np.float32(scale))) for v in box)
        bin_h, bin_w = max(eh - sh + 1, 1) / ph, max(ew - sw + 1, 1) / pw
        for i in range(ph):
            h0 = min(max(math.floor(i * bin_h) + sh, 0), height)
            h1 = min(max(math.ceil((i + 1) * bin_h) + sh, 0), height)
            for j in range(pw):
                w0 = min(max(math.floor(j * bin_w) + sw, 0), width)
                w1 = min(max(math.ceil((j + 1) * bin_w) + sw, 0), width)
                if h0 < h1 and w0 < w1:
                    out[r, :, i, j] = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def test_roi_pool_matches_numpy_with_clipped_and_empty_bins():
    x = RNG.standard_normal((2, 3, 9, 11)).astype("float32")
    rois = np.array([[0, 1.2, 0.4, 7.6, 5.5], [1, 0, 0, 10, 8], [0, 3, 3, 3, 3],
                     [1, 6.5, 2.5, 30, 20], [0, -4, -3, 2, 1]], "float32")
    out = run_graph(lambda a, b: V.roi_pool(a, b, (3, 4), 0.75), [x, rois])
    np.testing.assert_array_equal(out, roi_pool_ref(x, rois, 3, 4, 0.75))


def test_roi_pool_struct_info_and_printed_form():
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 8, 8), "float32"))
    n = tir.Var("n", "int64")
    r = relax.Var("r", relax.TensorStructInfo((n, 5), "float32"))
    n_out, *rest = V.roi_pool(x, r, 2, 0.5).struct_info.shape
    assert n_out is n and [int(d.value) for d in rest] == [4, 2, 2]
    text = roundtrip(lambda a, b: V.roi_pool(a, b, (2, 3), 0.5), [(1, 4, 8, 8), (3, 5)])
    assert ('R.vision.roi_pool(x0, x1, pooled_size=[2, 3], spatial_scale=0.5, '
            'layout="NCHW")') in text


def test_roi_pool_is_also_relax_op_roi_pool():
    assert relax.op.roi_pool is V.roi_pool


def test_roi_pool_errors_name_the_problem():
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 8, 8), "float32"))
    bad = relax.Var("r", relax.TensorStructInfo((3, 4), "float32"))
    with pytest.raises(OpError, match="5 columns"):
        V.roi_pool(x, bad, 2, 1.0)
    r = relax.Var("r", relax.TensorStructInfo((3, 5), "float32"))
    with pytest.raises(OpError, match="NCHW"):
        V.roi_pool(x, r, 2, 1.0, layout="NHWC")
    flat = relax.Var("f", relax.TensorStructInfo((4, 8), "float32"))
    with pytest.raises(OpError, match="4-D"):
        V.roi_pool(flat, r, 2, 1.0)
