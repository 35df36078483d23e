"""R.vision.roi_align (ir/ops/vision.py, topi/roi_align.py): struct info, printed form, and
values against a numpy loop of TVM's rule (a fixed grid of bilinear samples per bin)."""

import math

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError

V = relax.op.vision


def _sample(img, y, x):
    height, width = img.shape[-2:]
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return np.zeros(img.shape[0])
    y, x = min(max(y, 0.0), height - 1), min(max(x, 0.0), width - 1)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    y1, x1 = min(y0 + 1, height - 1), min(x0 + 1, width - 1)
    dy, dx = y - y0, x - x0
    return (img[:, y0, x0] * (1 - dy) * (1 - dx) + img[:, y0, x1] * (1 - dy) * dx
            + img[:, y1, x0] * dy * (1 - dx) + img[:, y1, x1] * dy * dx)


def roi_align_ref(x, rois, ph, pw, scale, ratio, aligned, mode):
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for r, (b, *box) in enumerate(rois):
        x1, y1, x2, y2 = (v * scale for v in box)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        for i in range(ph):
            for j in range(pw):
                vals = [_sample(x[int(b)].astype("float64"),
                                y1 + i * bh + (sy + 0.5) * bh / ratio,
                                x1 + j * bw + (sx + 0.5) * bw / ratio)
                        for sy in range(ratio) for sx in range(ratio)]
                out[r, :, i, j] = np.mean(vals, 0) if mode == "avg" else np.max(vals, 0)
    return out.astype(x.dtype)


@pytest.mark.parametrize("aligned,mode", [(False, "avg"), (True, "max")])
def test_roi_align_matches_numpy(aligned, mode):
    x = RNG.standard_normal((2, 3, 9, 11)).astype("float32")
    rois = np.array([[0, 1.2, 0.4, 15.6, 11.5], [1, 0, 0, 20, 16], [0, 3, 3, 3, 3],
                     [1, -4, -3, 30, 2]], "float32")
    out = run_graph(lambda a, r: V.roi_align(a, r, (3, 4), 0.5, sample_ratio=2,
                                             aligned=aligned, mode=mode), [x, rois])
    np.testing.assert_allclose(out, roi_align_ref(x, rois, 3, 4, 0.5, 2, aligned, mode),
                               rtol=1e-5, atol=1e-5)


def test_roi_align_struct_info_printed_form_and_errors():
    text = roundtrip(lambda a, r: V.roi_align(a, r, 2, 1.0, sample_ratio=1), [(1, 4, 6, 6),
                                                                              ("n", 5)])
    assert "R.vision.roi_align(" in text and 'R.Tensor(("n", 4, 2, 2)' in text
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 6, 6), "float32"))
    r = relax.Var("r", relax.TensorStructInfo((3, 4), "float32"))
    with pytest.raises(OpError, match="R.vision.roi_align: rois must have 5 columns"):
        V.roi_align(x, r, 2, 1.0)
    with pytest.raises(NotImplementedError, match="sample_ratio <= 0"):
        run_graph(lambda a, b: V.roi_align(a, b, 2, 1.0),
                  [np.zeros((1, 1, 4, 4), "float32"), np.zeros((1, 5), "float32")])
