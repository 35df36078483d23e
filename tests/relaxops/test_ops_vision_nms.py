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


def _onnx_nms(boxes, scores, limit, iou, threshold):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    h = onnx.helper
    inputs = [h.make_tensor_value_info("boxes", onnx.TensorProto.FLOAT, boxes.shape),
              h.make_tensor_value_info("scores", onnx.TensorProto.FLOAT, scores.shape)]
    consts = [h.make_tensor("limit", onnx.TensorProto.INT64, [1], [limit]),
              h.make_tensor("iou", onnx.TensorProto.FLOAT, [1], [iou]),
              h.make_tensor("thr", onnx.TensorProto.FLOAT, [1], [threshold])]
    node = h.make_node("NonMaxSuppression", ["boxes", "scores", "limit", "iou", "thr"], ["out"])
    out = h.make_tensor_value_info("out", onnx.TensorProto.INT64, None)
    model = h.make_model(h.make_graph([node], "nms", inputs, [out], consts),
                         opset_imports=[h.make_opsetid("", 13)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"boxes": boxes, "scores": scores})[0]


def test_all_class_nms_matches_onnxruntime():
    corner = RNG.uniform(0, 8, (2, 12, 2)).astype("float32")
    boxes = np.concatenate([corner, corner + RNG.uniform(1, 4, (2, 12, 2))], -1).astype(
        "float32")
    scores = RNG.uniform(0, 1, (2, 3, 12)).astype("float32")
    selected, count = run_graph(lambda b, s: V.all_class_non_max_suppression(
        b, s, 4, 0.3, 0.2), [boxes, scores])
    ref = _onnx_nms(boxes, scores, 4, 0.3, 0.2)
    np.testing.assert_array_equal(selected, ref)
    assert count.tolist() == [len(ref)]


def test_all_class_nms_struct_info():
    b = relax.Var("b", relax.TensorStructInfo((2, 12, 4), "float32"))
    s = relax.Var("s", relax.TensorStructInfo((2, 3, 12), "float32"))
    sinfo = V.all_class_non_max_suppression(b, s, 4, 0.3, 0.2).struct_info
    assert [int(d) for d in sinfo.fields[0].shape] == [72, 3]
    with pytest.raises(OpError, match="only output_format='onnx'"):
        V.all_class_non_max_suppression(b, s, 4, 0.3, 0.2, output_format="tensorflow")


def _box_iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def nms_ref(data, iou, force, top_k, max_out):
    """Original indices kept per batch (get_valid_counts at 0, then greedy NMS)."""
    result = []
    for boxes in data:
        rows = [i for i, r in enumerate(boxes) if r[1] > 0 and r[0] >= 0]
        rows.sort(key=lambda i: -boxes[i][1])
        rows = rows[:top_k] if top_k > 0 else rows
        kept = []
        for i in rows:
            if 0 <= max_out <= len(kept):
                break
            if all(_box_iou(boxes[i][2:], boxes[k][2:]) < iou for k in kept
                   if force or boxes[k][0] == boxes[i][0]):
                kept.append(i)
        result.append(kept)
    return result


def _nms_graph(kw):
    from tvmlite.script.parser.relax_parser import tuple_get_item as item

    def build(x):
        counted = V.get_valid_counts(x, 0.0, 0, 1)
        return V.non_max_suppression(item(counted, 1), item(counted, 0), item(counted, 2), **kw)
    return build


@pytest.mark.parametrize("kw", [dict(iou_threshold=0.5),
                                dict(force_suppress=True, top_k=5, max_output_size=3,
                                     iou_threshold=0.3)])
def test_non_max_suppression_matches_greedy_loop(kw):
    xy = RNG.uniform(0, 4, (2, 8, 2))
    data = np.concatenate([RNG.integers(-1, 2, (2, 8, 1)), RNG.uniform(0, 1, (2, 8, 1)), xy,
                           xy + RNG.uniform(1, 3, (2, 8, 2))], -1).astype("float32")
    picked, totals = run_graph(_nms_graph(kw), [data])
    ref = nms_ref(data, kw["iou_threshold"], kw.get("force_suppress", False),
                  kw.get("top_k", -1), kw.get("max_output_size", -1))
    for b, kept in enumerate(ref):
        assert picked[b].tolist() == kept + [-1] * (8 - len(kept))
        assert totals[b].tolist() == [len(kept)]
    boxes = run_graph(_nms_graph({**kw, "return_indices": False, "invalid_to_bottom": True}),
                      [data])
    for b, kept in enumerate(ref):
        np.testing.assert_array_equal(boxes[b, :len(kept)], data[b, kept])
        assert (boxes[b, len(kept):] == -1).all()


def test_non_max_suppression_leaves_suppressed_rows_in_place():
    data = np.array([[[0, .9, 0, 0, 2, 2], [0, .8, .1, 0, 2, 2], [0, .7, 5, 5, 6, 6]]],
                    "float32")  # the second box overlaps the first: suppressed
    out = run_graph(_nms_graph({"return_indices": False}), [data])
    np.testing.assert_array_equal(out[0], [data[0, 0], [-1] * 6, data[0, 2]])
    out = run_graph(_nms_graph({"return_indices": False, "invalid_to_bottom": True}), [data])
    np.testing.assert_array_equal(out[0], [data[0, 0], data[0, 2], [-1] * 6])
