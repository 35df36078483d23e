"""R.vision.non_max_suppression with soft_nms_sigma > 0 (TVM 0.27's soft NMS): it also returns
the boxes, overlapping boxes' scores decayed by exp(-iou^2 / (2 sigma)); values by hand."""

import math

import numpy as np
from op_helpers import run_graph

from tvmlite import relax

V = relax.op.vision

# rows: class id, score, x1, y1, x2, y2
DATA = np.array([[[0, 0.9, 0, 0, 2, 2],      # best
                  [0, 0.8, 1, 0, 3, 2],      # IoU 1/3 with the best: 0.8 * exp(-1/9)
                  [0, 0.75, 10, 10, 12, 12],  # apart: keeps 0.75, now ahead of the decayed box
                  [0, 0.6, 0, 0, 2, 1.5]]],  # IoU 0.75 with the best: dropped
                "float32")


def _soft_nms(counted_data, valid_count, indices):
    return V.non_max_suppression(counted_data, valid_count, indices, iou_threshold=0.5,
                                 soft_nms_sigma=0.5, return_indices=True)


def test_soft_nms_struct_info_adds_the_boxes():
    data = relax.Var("d", relax.TensorType((2, 5, 6), "float32"))
    count = relax.Var("c", relax.TensorType((2,), "int32"))
    idx = relax.Var("i", relax.TensorType((2, 5), "int32"))
    sinfo = _soft_nms(data, count, idx).struct_info
    assert sinfo == relax.TupleType([relax.TensorType((2, 5, 6), "float32"),
                                     relax.TensorType((2, 5), "int32"),
                                     relax.TensorType((2, 1), "int32")])
    hard = V.non_max_suppression(data, count, idx, return_indices=True).struct_info
    assert len(hard.fields) == 2


def test_soft_nms_decays_overlapping_scores_and_reorders():
    count = np.array([4], "int32")
    indices = np.array([[10, 11, 12, 13]], "int32")
    out, picked, total = run_graph(_soft_nms, [DATA, count, indices])
    assert total.tolist() == [[3]]
    assert picked.tolist() == [[10, 12, 11, -1]]
    expected = np.full_like(DATA, -1)
    expected[0, :3] = DATA[0, [0, 2, 1]]
    expected[0, 2, 1] = 0.8 * math.exp(-1 / 9)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
