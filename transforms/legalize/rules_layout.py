"""Legalization of `R.layout_transform` (ir/ops/layout.py) to topi/index_map_layout.py."""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...topi import index_map_layout
from ...topi.schedule_mode import scheduled
from .rules import NAMED_BY_CALL, register_legalize



@register_legalize("relax.layout_transform")
def _layout_transform(c: rx.Call, x: Any) -> Any:
    imap, shape, pad = c.attr("index_map"), c.struct_info.shape, c.attr("pad_value")
    plain = None
    if not scheduled():  # TVM's forms: a scatter over the input, or the padded gather
        plain = index_map_layout.layout_transform_plain(x, imap, shape) or \
            index_map_layout.layout_transform_padded(x, imap, shape, pad)
    return plain or index_map_layout.layout_transform(x, imap, shape, pad)


def _name(c: rx.Call) -> str:
    x = c.args[0].struct_info
    padded = index_map_layout.needs_padding(x.shape, c.struct_info.shape)
    return "te_layout_transform_with_pad" if padded else "te_layout_transform"


NAMED_BY_CALL["relax.layout_transform"] = _name
