"""Legalization of the 3-d `R.nn` operators (ir/ops/nn3d.py) to topi/nn3d.py's computes."""

from __future__ import annotations

from ...topi import nn3d
from .rules import register_legalize

register_legalize("relax.nn.conv3d", lambda c, x, w: nn3d.conv3d_ncdhw(
    x, w, c.attr("strides"), c.attr("padding"), c.attr("dilation"), c.attr("groups"),
    c.struct_info.dtype))
register_legalize("relax.nn.conv3d_transpose", lambda c, x, w: nn3d.conv3d_transpose_ncdhw(
    x, w, c.attr("strides"), c.attr("padding"), c.attr("output_padding"), c.attr("dilation"),
    c.attr("groups"), c.struct_info.dtype))
for _kind in ("max", "avg"):
    register_legalize(f"relax.nn.{_kind}_pool3d", (lambda kind: lambda c, x: nn3d.pool3d(
        x, kind, c.attr("pool_size"), c.attr("strides"), c.attr("padding"), c.attr("dilation"),
        c.attr("ceil_mode"), c.attr("count_include_pad")))(_kind))
register_legalize("relax.nn.adaptive_avg_pool3d", lambda c, x: nn3d.adaptive_avg_pool3d(
    x, c.struct_info.shape[2:]))
