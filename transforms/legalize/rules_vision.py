"""Legalization of the vision operators (ir/ops/vision.py) to topi/vision.py's computes."""

from __future__ import annotations

from ...topi import multibox, roi_align, vision
from .rules import register_legalize

register_legalize("relax.vision.roi_pool", lambda c, x, rois: vision.roi_pool(
    x, rois, tuple(c.attr("pooled_size")), c.attr("spatial_scale")))
register_legalize("relax.vision.roi_align", lambda c, x, rois: roi_align.roi_align(
    x, rois, tuple(c.attr("pooled_size")), c.attr("spatial_scale"), c.attr("sample_ratio"),
    c.attr("aligned"), c.attr("mode")))
register_legalize("relax.vision.multibox_transform_loc", lambda c, cls, loc, anchor:
                  multibox.multibox_transform_loc(
                      cls, loc, anchor, c.attr("clip"), c.attr("threshold"),
                      c.attr("variances"), c.attr("keep_background"), c.attr("apply_softmax")))
