"""Vision operators: `R.vision.roi_pool`, `roi_align`, `multibox_transform_loc` (TVM's attrs)."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from .. import expr as rx
from .. import struct_info as si
from .base import OPAQUE, as_int, call, op_error, out_tensor, register, tensor_arg

_ROI_POOL = "relax.vision.roi_pool"


def _pair(v: Any) -> tuple[int, int]:
    items = [int(v)] * 2 if isinstance(v, int) else [int(x) for x in v]
    if len(items) == 1:
        items *= 2
    if len(items) != 2:
        raise op_error(_ROI_POOL, f"pooled_size must have 1 or 2 values, got {len(items)}")
    return items[0], items[1]


def _infer_roi_pool(c: rx.Call) -> si.StructInfo:
    x = tensor_arg(_ROI_POOL, c, 0, "data")
    rois = tensor_arg(_ROI_POOL, c, 1, "rois")
    if x.ndim not in (-1, 4):
        raise op_error(_ROI_POOL, f"data must be 4-D (NCHW), got {x.ndim} dims")
    if rois.ndim not in (-1, 2):
        raise op_error(_ROI_POOL, f"rois must be 2-D (num_roi, 5), got {rois.ndim} dims")
    if rois.shape is not None and as_int(rois.shape[1]) not in (None, 5):
        raise op_error(_ROI_POOL, f"rois must have 5 columns (batch, x1, y1, x2, y2), got "
                                  f"{as_int(rois.shape[1])}")
    if c.attr("layout") != "NCHW":
        raise op_error(_ROI_POOL, f"only the NCHW layout is supported, got {c.attr('layout')}")
    ph, pw = c.attr("pooled_size")
    if x.shape is None or rois.shape is None:
        return si.TensorStructInfo(None, x.dtype, 4)
    dims = (rois.shape[0], x.shape[1], tx.const(ph, "int64"), tx.const(pw, "int64"))
    return out_tensor(dims, x.dtype)


def roi_pool(data: Any, rois: Any, pooled_size: Any, spatial_scale: float,
             layout: str = "NCHW") -> rx.Call:
    return call(_ROI_POOL, (data, rois), pooled_size=list(_pair(pooled_size)),
                spatial_scale=float(spatial_scale), layout=str(layout))


register(_ROI_POOL, _infer_roi_pool, roi_pool, OPAQUE)


_ROI_ALIGN = "relax.vision.roi_align"


def _infer_roi_align(c: rx.Call) -> si.StructInfo:
    if c.attr("mode") not in ("avg", "max"):
        raise op_error(_ROI_ALIGN, f"mode must be 'avg' or 'max', got {c.attr('mode')!r}")
    x = tensor_arg(_ROI_ALIGN, c, 0, "data")
    rois = tensor_arg(_ROI_ALIGN, c, 1, "rois")
    if x.ndim not in (-1, 4):
        raise op_error(_ROI_ALIGN, f"data must be 4-D (NCHW), got {x.ndim} dims")
    if rois.ndim not in (-1, 2):
        raise op_error(_ROI_ALIGN, f"rois must be 2-D (num_roi, 5), got {rois.ndim} dims")
    if rois.shape is not None and as_int(rois.shape[1]) not in (None, 5):
        raise op_error(_ROI_ALIGN, f"rois must have 5 columns (batch, x1, y1, x2, y2), got "
                                   f"{as_int(rois.shape[1])}")
    if c.attr("layout") != "NCHW":
        raise op_error(_ROI_ALIGN, f"only the NCHW layout is supported, got {c.attr('layout')}")
    ph, pw = c.attr("pooled_size")
    if x.shape is None or rois.shape is None:
        return si.TensorStructInfo(None, x.dtype, 4)
    dims = (rois.shape[0], x.shape[1], tx.const(ph, "int64"), tx.const(pw, "int64"))
    return out_tensor(dims, x.dtype)


def roi_align(data: Any, rois: Any, pooled_size: Any, spatial_scale: float,
              sample_ratio: int = -1, aligned: bool = False, layout: str = "NCHW",
              mode: str = "avg") -> rx.Call:
    return call(_ROI_ALIGN, (data, rois), pooled_size=list(_pair(pooled_size)),
                spatial_scale=float(spatial_scale), sample_ratio=int(sample_ratio),
                aligned=bool(aligned), layout=str(layout), mode=str(mode))


register(_ROI_ALIGN, _infer_roi_align, roi_align, OPAQUE)


_MULTIBOX = "relax.vision.multibox_transform_loc"


def _infer_multibox(c: rx.Call) -> si.StructInfo:
    cls = tensor_arg(_MULTIBOX, c, 0, "cls_pred")
    loc = tensor_arg(_MULTIBOX, c, 1, "loc_pred")
    anchor = tensor_arg(_MULTIBOX, c, 2, "anchor")
    for t, rank, what in ((cls, 3, "cls_pred (B, C, N)"), (loc, 2, "loc_pred (B, 4*N)"),
                          (anchor, 3, "anchor (1, N, 4)")):
        if t.ndim not in (-1, rank):
            raise op_error(_MULTIBOX, f"{what} must be {rank}-D, got {t.ndim} dims")
    if len({t.dtype for t in (cls, loc, anchor) if t.dtype}) > 1:
        raise op_error(_MULTIBOX, f"cls_pred, loc_pred and anchor must share a dtype, got "
                                  f"{cls.dtype}, {loc.dtype} and {anchor.dtype}")
    if cls.shape is None:
        return si.TupleStructInfo((si.TensorStructInfo(None, cls.dtype, 3), cls))
    b, _, n = cls.shape
    if loc.shape is not None and as_int(loc.shape[1]) is not None and \
            as_int(n) is not None and as_int(loc.shape[1]) != 4 * as_int(n):
        raise op_error(_MULTIBOX, f"loc_pred has {as_int(loc.shape[1])} values per batch; "
                                  f"{as_int(n)} anchors need {4 * as_int(n)}")
    boxes = out_tensor((b, n, tx.const(4, "int64")), cls.dtype)
    return si.TupleStructInfo((boxes, out_tensor(cls.shape, cls.dtype)))


def multibox_transform_loc(cls_pred: Any, loc_pred: Any, anchor: Any, clip: bool = False,
                           threshold: float = 0.0, variances: Any = (1.0, 1.0, 1.0, 1.0),
                           keep_background: bool = True, apply_softmax: bool = True
                           ) -> rx.Call:
    return call(_MULTIBOX, (cls_pred, loc_pred, anchor), clip=bool(clip),
                threshold=float(threshold), variances=[float(v) for v in variances],
                keep_background=bool(keep_background), apply_softmax=bool(apply_softmax))


register(_MULTIBOX, _infer_multibox, multibox_transform_loc, OPAQUE)
