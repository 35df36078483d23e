"""Box-selection vision operators whose work depends on the data: `R.vision.get_valid_counts`
(TVM 0.27's struct info and attributes). They run as numpy builtins (vm/vision_builtins.py),
which receive the attributes after the tensors (`vm_builtin_attrs`)."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from .base import OPAQUE, call, op_error, tensor_arg

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
