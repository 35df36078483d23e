"""`relax.run.vision.get_valid_counts` and `relax.run.vision.all_class_non_max_suppression`:
numpy kernels of ir/ops/vision_nms.py's operators (which boxes are kept depends on the data)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ndarray import NDArray, as_ndarray
from .registry import register_func


def get_valid_counts(data: Any, score_threshold: float, id_index: int, score_index: int
                     ) -> tuple[NDArray, NDArray, NDArray]:
    boxes = data.numpy() if isinstance(data, NDArray) else np.asarray(data)
    if boxes.ndim != 3:
        raise ValueError(f"R.vision.get_valid_counts: data must be 3-D, got shape {boxes.shape}")
    keep = boxes[:, :, score_index] > np.float32(score_threshold)
    if id_index >= 0:
        keep &= boxes[:, :, id_index] >= 0
    out = np.full_like(boxes, -1)
    indices = np.full(boxes.shape[:2], -1, "int32")
    counts = keep.sum(axis=1).astype("int32")
    for b in range(boxes.shape[0]):
        rows = np.flatnonzero(keep[b])
        out[b, :len(rows)] = boxes[b, rows]
        indices[b, :len(rows)] = rows
    return as_ndarray(counts), as_ndarray(out), as_ndarray(indices)


def _iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of one (y1, x1, y2, x2) box with each of `others` (corners in
    either order, as ONNX allows)."""
    def corners(b: np.ndarray) -> tuple[np.ndarray, ...]:
        return (np.minimum(b[..., 0], b[..., 2]), np.minimum(b[..., 1], b[..., 3]),
                np.maximum(b[..., 0], b[..., 2]), np.maximum(b[..., 1], b[..., 3]))
    ay1, ax1, ay2, ax2 = corners(box)
    by1, bx1, by2, bx2 = corners(others)
    inter = np.clip(np.minimum(ay2, by2) - np.maximum(ay1, by1), 0, None) * \
        np.clip(np.minimum(ax2, bx2) - np.maximum(ax1, bx1), 0, None)
    union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _select(boxes: np.ndarray, scores: np.ndarray, limit: int, iou: float, threshold: float
            ) -> list[int]:
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > threshold]
    kept: list[int] = []
    for i in order:
        if len(kept) >= limit:
            break
        if not kept or np.all(_iou(boxes[i], boxes[kept]) <= iou):
            kept.append(int(i))
    return kept


def all_class_non_max_suppression(boxes: Any, scores: Any, max_per_class: Any, iou: Any,
                                  threshold: Any) -> tuple[NDArray, NDArray]:
    b_arr, s_arr = (np.asarray(t.numpy() if isinstance(t, NDArray) else t) for t in (boxes,
                                                                                    scores))
    limit, iou_t, score_t = (np.asarray(t.numpy() if isinstance(t, NDArray) else t).item()
                             for t in (max_per_class, iou, threshold))
    rows = [(b, c, i) for b in range(s_arr.shape[0]) for c in range(s_arr.shape[1])
            for i in _select(b_arr[b], s_arr[b, c], int(limit), float(iou_t), float(score_t))]
    selected = np.array(rows, "int64").reshape(-1, 3)
    return as_ndarray(selected), as_ndarray(np.array([len(rows)], "int64"))


def _xyxy_iou(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    yx = a[[1, 0, 3, 2]]  # _iou takes (y1, x1, y2, x2)
    return _iou(yx, others[:, [1, 0, 3, 2]])


def _nms_order(boxes: np.ndarray, count: int, opts: dict[str, Any]) -> list[tuple[int, int]]:
    """(rank by score, row position) of each box kept, best score first."""
    scores = boxes[:count, opts["score_index"]]
    order = [int(i) for i in np.argsort(-scores, kind="stable")
             if scores[i] > opts["score_threshold"]]
    if opts["top_k"] > 0:
        order = order[:opts["top_k"]]
    cs = opts["coord_start"]
    kept: list[tuple[int, int]] = []
    for rank, i in enumerate(order):
        if 0 <= opts["max_output_size"] <= len(kept):
            break
        rivals = [k for _, k in kept if opts["force_suppress"] or opts["id_index"] < 0
                  or boxes[k, opts["id_index"]] == boxes[i, opts["id_index"]]]
        if not rivals or np.all(_xyxy_iou(boxes[i, cs:cs + 4],
                                          boxes[rivals, cs:cs + 4]) < opts["iou_threshold"]):
            kept.append((rank, i))
    return kept


def _corner_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two boxes given by any two opposite corners (TVM's soft NMS reads them so)."""
    (al, ar), (at, ab) = sorted(a[[0, 2]]), sorted(a[[1, 3]])
    (bl, br), (bt, bb) = sorted(b[[0, 2]]), sorted(b[[1, 3]])
    inter = max(0.0, min(ar, br) - max(al, bl)) * max(0.0, min(ab, bb) - max(at, bt))
    union = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - inter
    return 0.0 if union <= 0 else float(inter / union)


def _soft_nms(boxes: np.ndarray, count: int, index: np.ndarray, sigma: float,
              opts: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, int]:
    """TVM's soft NMS of one batch: each round keeps the best remaining box, drops the boxes
    that overlap it by `iou_threshold` and decays the others' scores by exp(-iou^2 / 2 sigma)
    (dropping those left at or below `score_threshold`). The kept rows come first."""
    si, cs, thresh = opts["score_index"], opts["coord_start"], opts["score_threshold"]
    keep = min(count, opts["top_k"]) if opts["top_k"] > 0 else count
    order = np.argsort(-boxes[:count, si], kind="stable")[:keep]
    out = np.full_like(boxes, -1)
    out[:keep] = boxes[order]
    ids = np.full(len(boxes), -1, "int64")
    ids[:keep] = order
    kept = 0
    for _ in range(keep):
        if 0 < opts["max_output_size"] <= kept:
            break
        live = [j for j in range(kept, keep) if ids[j] >= 0 and out[j, si] > thresh]
        if not live:
            break
        best = max(live, key=lambda j: (out[j, si], -j))  # the first of equal scores
        out[[kept, best]], ids[[kept, best]] = out[[best, kept]], ids[[best, kept]]
        for j in range(kept + 1, keep):
            same = opts["force_suppress"] or opts["id_index"] < 0 or \
                out[kept, opts["id_index"]] == out[j, opts["id_index"]]
            if ids[j] < 0 or out[j, si] <= thresh or not same:
                continue
            iou = _corner_iou(out[kept, cs:cs + 4], out[j, cs:cs + 4])
            if iou >= opts["iou_threshold"]:
                ids[j] = -1
                continue
            out[j, si] *= np.exp(-0.5 / sigma * iou * iou)
            if out[j, si] <= thresh:
                ids[j] = -1
        kept += 1
    out[kept:] = -1
    picked = np.full(len(boxes), -1, "int32")
    picked[:kept] = index[ids[:kept]]
    return out, picked, kept


def non_max_suppression(data: Any, valid_count: Any, indices: Any, *attrs: Any) -> Any:
    opts = dict(zip(("max_output_size", "iou_threshold", "force_suppress", "top_k",
                     "coord_start", "score_index", "id_index", "return_indices",
                     "invalid_to_bottom", "score_threshold", "soft_nms_sigma"), attrs))
    boxes, counts, index = (t.numpy() if isinstance(t, NDArray) else np.asarray(t)
                            for t in (data, valid_count, indices))
    if opts.get("soft_nms_sigma", 0.0) > 0.0:
        results = [_soft_nms(boxes[b], int(counts[b]), index[b], opts["soft_nms_sigma"], opts)
                   for b in range(boxes.shape[0])]
        out = np.stack([r[0] for r in results])
        if not opts["return_indices"]:
            return as_ndarray(out)
        picked = np.stack([r[1] for r in results])
        totals = np.array([[r[2]] for r in results], "int32")
        return as_ndarray(out), as_ndarray(picked), as_ndarray(totals)
    out = np.full_like(boxes, -1)
    picked = np.full(boxes.shape[:2], -1, "int32")
    totals = np.zeros((boxes.shape[0], 1), "int32")
    for b in range(boxes.shape[0]):
        ranks, kept = zip(*order) if (order := _nms_order(boxes[b], int(counts[b]), opts)) \
            else ((), ())
        # suppressed boxes leave -1 rows where they ranked, unless moved to the bottom
        rows = list(range(len(kept))) if opts["invalid_to_bottom"] else list(ranks)
        out[b, rows] = boxes[b, list(kept)]
        picked[b, :len(kept)] = index[b, list(kept)]
        totals[b, 0] = len(kept)
    if opts["return_indices"]:
        return as_ndarray(picked), as_ndarray(totals)
    return as_ndarray(out)


register_func("relax.run.vision.non_max_suppression", non_max_suppression, override=True)
register_func("relax.run.vision.all_class_non_max_suppression", all_class_non_max_suppression,
              override=True)
register_func("relax.run.vision.get_valid_counts", get_valid_counts, override=True)
