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


register_func("relax.run.vision.all_class_non_max_suppression", all_class_non_max_suppression,
              override=True)
register_func("relax.run.vision.get_valid_counts", get_valid_counts, override=True)
