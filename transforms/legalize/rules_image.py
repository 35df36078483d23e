"""Legalization of `R.image.resize3d`, `grid_sample` and `affine_grid` (ir/ops/image_ext.py)
to topi/image_ext.py's computes."""

from __future__ import annotations

from ...topi import image_ext
from .rules import register_legalize

register_legalize("relax.image.resize3d", lambda c, x, size: image_ext.resize3d(
    x, c.struct_info.shape[2:], c.attr("method"), c.attr("coordinate_transformation_mode"),
    c.attr("rounding_method"), c.struct_info.dtype))
register_legalize("relax.image.grid_sample", lambda c, x, grid: image_ext.grid_sample(
    x, grid, c.attr("method"), c.attr("padding_mode"), c.attr("align_corners")))
register_legalize("relax.image.affine_grid", lambda c, theta, size: image_ext.affine_grid(
    theta, c.struct_info.shape[2:], c.attr("align_corners")))

# Last of the rule modules LegalizeOps imports: TVM's plain nn forms wrap the rules above.
from . import rules_nn_plain  # noqa: E402,F401
