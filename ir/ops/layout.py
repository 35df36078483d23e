"""`R.layout_transform(x, index_map, pad_value)`: a tensor's elements moved to the positions an
index map gives (TVM 0.27's operator; the map is kept as a `tir.IndexMap` attribute).

The output shape is the map's image of the input shape; where the map does not cover the
output (a split of a dim that does not divide it) the output holds `pad_value`.
"""

from __future__ import annotations

from typing import Any

from ...tir.index_map import IndexMap, as_index_map
from .. import expr as rx
from .. import struct_info as si
from .base import INJECTIVE, call, op_error, out_tensor, register, tensor_arg

_NAME = "relax.layout_transform"


def _infer_layout_transform(c: rx.Call) -> si.StructInfo:
    x = tensor_arg(_NAME, c, 0, "the input")
    imap = c.attr("index_map")
    if x.ndim not in (-1, imap.ndim):
        raise op_error(_NAME, f"the index map takes {imap.ndim} indices but the input has "
                              f"{x.ndim} dims")
    if x.shape is None:
        return si.TensorStructInfo(None, x.dtype, len(imap.final_indices))
    try:
        shape = imap.map_shape(list(x.shape))
    except ValueError as err:
        raise op_error(_NAME, f"cannot map the input shape: {err}") from None
    return out_tensor(tuple(shape), x.dtype)


def layout_transform(x: Any, index_map: Any, pad_value: Any = None,
                     axis_separators: Any = None, input_axis_separators: Any = None) -> rx.Call:
    """`x` re-laid out by `index_map` (a Python function of the indices, or a tir.IndexMap)."""
    if not isinstance(index_map, IndexMap):
        ndim = getattr(getattr(x, "struct_info", None), "ndim", None)
        index_map = as_index_map(index_map, ndim if ndim and ndim > 0 else None, "int64")
    pad = getattr(pad_value, "value", pad_value)
    return call(_NAME, (x,), index_map=index_map,
                pad_value=None if pad is None else float(pad))


register(_NAME, _infer_layout_transform, layout_transform, INJECTIVE)
