"""`relax.run.vision.get_valid_counts`: the numpy kernel of ir/ops/vision_nms.py's operator
(which boxes are kept depends on the data)."""

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


register_func("relax.run.vision.get_valid_counts", get_valid_counts, override=True)
