"""Legalization of `R.layout_transform` (ir/ops/layout.py) to topi/index_map_layout.py."""

from __future__ import annotations

from ...topi import index_map_layout
from ...topi.schedule_mode import scheduled
from .rules import register_legalize

register_legalize("relax.layout_transform", lambda c, x: (
    None if scheduled() else index_map_layout.layout_transform_plain(
        x, c.attr("index_map"), c.struct_info.shape)) or index_map_layout.layout_transform(
    x, c.attr("index_map"), c.struct_info.shape, c.attr("pad_value")))
