"""R.vision.multibox_transform_loc (ir/ops/vision.py, topi/multibox.py): struct info, printed
form, and values against a numpy decode of TFLite's center-size boxes and softmax scores."""

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError

V = relax.op.vision


def multibox_ref(cls, loc, anchor, clip, threshold, var, keep_background):
    left, top, right, bottom = (anchor[0, :, k] for k in range(4))
    enc = loc.reshape(loc.shape[0], -1, 4)  # (x, y, w, h) per anchor
    ha, wa = bottom - top, right - left
    yc = enc[..., 1] * var[1] * ha + (top + bottom) / 2
    xc = enc[..., 0] * var[0] * wa + (left + right) / 2
    h, w = np.exp(enc[..., 3] * var[3]) * ha, np.exp(enc[..., 2] * var[2]) * wa
    boxes = np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], -1)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    e = np.exp(cls - cls.max(1, keepdims=True))
    scores = e / e.sum(1, keepdims=True)
    scores = scores * (scores >= threshold)
    if not keep_background:
        scores[:, 0] = 0
    return boxes, scores


@pytest.mark.parametrize("clip,keep_background", [(True, True), (False, False)])
def test_multibox_transform_loc_matches_numpy(clip, keep_background):
    cls = RNG.standard_normal((2, 3, 5)).astype("float32")
    loc = (RNG.standard_normal((2, 20)) * 0.5).astype("float32")
    corners = np.sort(RNG.uniform(0, 1, (1, 5, 2, 2)), axis=2)  # (x|y) lo, hi
    anchor = np.stack([corners[..., 0, 0], corners[..., 0, 1], corners[..., 1, 0],
                       corners[..., 1, 1]], -1).astype("float32")  # left, top, right, bottom
    var = (0.1, 0.1, 0.2, 0.2)
    boxes, scores = run_graph(lambda c, lo, a: V.multibox_transform_loc(
        c, lo, a, clip=clip, threshold=0.3, variances=var, keep_background=keep_background),
        [cls, loc, anchor])
    ref_boxes, ref_scores = multibox_ref(cls, loc, anchor, clip, 0.3, var, keep_background)
    np.testing.assert_allclose(boxes, ref_boxes, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-5, atol=1e-6)


def test_multibox_struct_info_printed_form_and_errors():
    text = roundtrip(lambda c, lo, a: V.multibox_transform_loc(c, lo, a),
                     [(1, 3, 5), (1, 20), (1, 5, 4)])
    assert "R.vision.multibox_transform_loc(" in text
    assert 'R.Tuple(R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5)' in text
    c = relax.Var("c", relax.TensorStructInfo((1, 3, 5), "float32"))
    lo = relax.Var("l", relax.TensorStructInfo((1, 16), "float32"))
    a = relax.Var("a", relax.TensorStructInfo((1, 5, 4), "float32"))
    with pytest.raises(OpError, match="5 anchors need 20"):
        V.multibox_transform_loc(c, lo, a)
