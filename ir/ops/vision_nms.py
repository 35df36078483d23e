"""Box-selection vision operators whose work depends on the data: `R.vision.get_valid_counts`,
`non_max_suppression` and `all_class_non_max_suppression` (TVM 0.27's struct info and
attributes). They run as numpy builtins (vm/vision_builtins.py), which receive the
attributes after the tensors (`vm_builtin_attrs`)."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from ...tir import expr as tx
from ...tir.functor import simplify
from .base import OPAQUE, call, op_error, scalar_const, tensor_arg

_GET_VALID_COUNTS = "relax.vision.get_valid_counts"


def _infer_get_valid_counts(c: rx.Call) -> si.StructInfo:
    data = tensor_arg(_GET_VALID_COUNTS, c, 0, "data")
    if data.ndim not in (-1, 3):
        raise op_error(_GET_VALID_COUNTS, f"data must be 3-D (batch, boxes, elements), got "
                                          f"{data.ndim} dims")
    if data.shape is None:
        return si.TupleStructInfo((si.TensorStructInfo(None, "int32", 1),
                                   si.TensorStructInfo(None, data.dtype, 3),
                                   si.TensorStructInfo(None, "int32", 2)))
    b, n, _ = data.shape
    return si.TupleStructInfo((si.TensorStructInfo((b,), "int32"),
                               si.TensorStructInfo(data.shape, data.dtype),
                               si.TensorStructInfo((b, n), "int32")))


def get_valid_counts(data: Any, score_threshold: Any = 0, id_index: int = 0,
                     score_index: int = 1) -> rx.Call:
    """Per batch, the boxes scoring above `score_threshold` (and with a class id >= 0 when
    `id_index` >= 0) moved to the front: (count, boxes padded with -1, their indices)."""
    return call(_GET_VALID_COUNTS, (data,),
                score_threshold=float(getattr(score_threshold, "value", score_threshold)),
                id_index=int(id_index), score_index=int(score_index))


register_op(_GET_VALID_COUNTS, infer_struct_info=_infer_get_valid_counts,
            make=get_valid_counts, op_pattern=OPAQUE,
            vm_builtin="relax.run.vision.get_valid_counts",
            vm_builtin_attrs=("score_threshold", "id_index", "score_index"))


_ALL_CLASS_NMS = "relax.vision.all_class_non_max_suppression"


def _infer_all_class_nms(c: rx.Call) -> si.StructInfo:
    boxes = tensor_arg(_ALL_CLASS_NMS, c, 0, "boxes")
    scores = tensor_arg(_ALL_CLASS_NMS, c, 1, "scores")
    if c.attr("output_format") != "onnx":
        raise op_error(_ALL_CLASS_NMS, f"only output_format='onnx' is supported, got "
                                       f"{c.attr('output_format')!r}")
    if boxes.ndim not in (-1, 3) or scores.ndim not in (-1, 3):
        raise op_error(_ALL_CLASS_NMS, f"boxes (batch, boxes, 4) and scores (batch, classes, "
                                       f"boxes) must be 3-D, got {boxes.ndim} and "
                                       f"{scores.ndim} dims")
    count = si.TensorStructInfo((tx.const(1, "int64"),), "int64")
    if scores.shape is None:
        return si.TupleStructInfo((si.TensorStructInfo(None, "int64", 2), count))
    b, classes, n = scores.shape
    rows = simplify(b * classes * n)
    return si.TupleStructInfo((si.TensorStructInfo((rows, tx.const(3, "int64")), "int64"),
                               count))


def all_class_non_max_suppression(boxes: Any, scores: Any, max_output_boxes_per_class: Any,
                                  iou_threshold: Any, score_threshold: Any,
                                  output_format: str = "onnx") -> rx.Call:
    """ONNX's NonMaxSuppression: per batch and class, the best boxes that overlap no better
    one by more than `iou_threshold`; rows of (batch, class, box), and their count."""
    return call(_ALL_CLASS_NMS, (boxes, scores, _scalar(max_output_boxes_per_class, "int64"),
                                 _scalar(iou_threshold, "float32"),
                                 _scalar(score_threshold, "float32")),
                output_format=str(output_format))


def _scalar(value: Any, dtype: str) -> Any:
    return value if isinstance(value, rx.Expr) else scalar_const(value, dtype)


register_op(_ALL_CLASS_NMS, infer_struct_info=_infer_all_class_nms,
            make=all_class_non_max_suppression, op_pattern=OPAQUE,
            vm_builtin="relax.run.vision.all_class_non_max_suppression")


_NMS = "relax.vision.non_max_suppression"
_NMS_ATTRS = ("max_output_size", "iou_threshold", "force_suppress", "top_k", "coord_start",
              "score_index", "id_index", "return_indices", "invalid_to_bottom",
              "score_threshold", "soft_nms_sigma")


def _infer_nms(c: rx.Call) -> si.StructInfo:
    data = tensor_arg(_NMS, c, 0, "data")
    tensor_arg(_NMS, c, 1, "valid_count")
    tensor_arg(_NMS, c, 2, "indices")
    if data.ndim not in (-1, 3):
        raise op_error(_NMS, f"data must be 3-D (batch, boxes, elements), got {data.ndim} dims")
    if not c.attr("return_indices"):
        return data
    # soft NMS (soft_nms_sigma > 0) also returns the boxes, their scores decayed
    soft = (data,) if c.attr("soft_nms_sigma", 0.0) > 0.0 else ()
    if data.shape is None:
        return si.TupleStructInfo((*soft, si.TensorStructInfo(None, "int32", 2),
                                   si.TensorStructInfo(None, "int32", 2)))
    b, n, _ = data.shape
    return si.TupleStructInfo((*soft, si.TensorStructInfo((b, n), "int32"),
                               si.TensorStructInfo((b, tx.const(1, "int64")), "int32")))


def non_max_suppression(data: Any, valid_count: Any, indices: Any, max_output_size: int = -1,
                        iou_threshold: float = 0.5, force_suppress: bool = False,
                        top_k: int = -1, coord_start: int = 2, score_index: int = 1,
                        id_index: int = 0, return_indices: bool = True,
                        invalid_to_bottom: bool = False, soft_nms_sigma: float = 0.0,
                        score_threshold: float = 0.0) -> rx.Call:
    """Greedy NMS of get_valid_counts' output, best score first: a box is dropped when a kept
    one (of its class, unless `force_suppress`) overlaps it by `iou_threshold` or more."""
    return call(_NMS, (data, valid_count, indices), max_output_size=int(max_output_size),
                iou_threshold=float(iou_threshold), force_suppress=bool(force_suppress),
                top_k=int(top_k), coord_start=int(coord_start), score_index=int(score_index),
                id_index=int(id_index), return_indices=bool(return_indices),
                invalid_to_bottom=bool(invalid_to_bottom),
                soft_nms_sigma=float(soft_nms_sigma), score_threshold=float(score_threshold))


register_op(_NMS, infer_struct_info=_infer_nms, make=non_max_suppression, op_pattern=OPAQUE,
            vm_builtin="relax.run.vision.non_max_suppression", vm_builtin_attrs=_NMS_ATTRS)
