"""R.vision.get_valid_counts (ir/ops/vision_nms.py, vm/vision_builtins.py): struct info,
printed form, and values against a Python loop of TVM 0.27's rule."""

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError

V = relax.op.vision


def valid_counts_ref(data, threshold, id_index, score_index):
    counts, out, idx = [], np.full_like(data, -1), np.full(data.shape[:2], -1, "int32")
    for b, boxes in enumerate(data):
        kept = 0
        for i, box in enumerate(boxes):
            if box[score_index] > threshold and (id_index < 0 or box[id_index] >= 0):
                out[b, kept], idx[b, kept] = box, i
                kept += 1
        counts.append(kept)
    return np.array(counts, "int32"), out, idx


@pytest.mark.parametrize("id_index", [0, -1])
def test_get_valid_counts_matches_loop(id_index):
    data = RNG.uniform(0, 1, (2, 6, 6)).astype("float32")
    data[0, 1, 0], data[1, 4, 0] = -1, -1  # class id -1: dropped when id_index >= 0
    got = run_graph(lambda a: V.get_valid_counts(a, 0.4, id_index, 1), [data])
    for g, r in zip(got, valid_counts_ref(data, 0.4, id_index, 1)):
        np.testing.assert_array_equal(g, r)


def test_get_valid_counts_struct_info_and_errors():
    text = roundtrip(lambda a: V.get_valid_counts(a, 0.5), [("n", 7, 6)])
    assert "R.vision.get_valid_counts(" in text
    assert 'R.Tuple(R.Tensor(("n",), dtype="int32"), R.Tensor(("n", 7, 6)' in text
    flat = relax.Var("x", relax.TensorStructInfo((7, 6), "float32"))
    with pytest.raises(OpError, match="R.vision.get_valid_counts: data must be 3-D"):
        V.get_valid_counts(flat)
