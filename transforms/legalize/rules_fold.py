"""Calls LegalizeOps folds to relax constants, as TVM does, instead of emitting a kernel:
`arange` of constant bounds and `astype` of a 0-d constant (see rules.FOLD); and
`shape_to_tensor` of a shape whose values are unknown, which TVM hands to the packed
`relax.run.shape_to_tensor`."""

from __future__ import annotations

import numpy as np

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.op import CALL_PURE_PACKED
from ...ir.ops.base import const
from ...tir import expr as tx
from .rules import FOLD


def _number(e: rx.Expr) -> int | float | None:
    value = e.value if isinstance(e, rx.PrimValue) else None
    return value.value if isinstance(value, (tx.IntImm, tx.FloatImm)) else None


def _fold_arange(call: rx.Call) -> rx.Expr | None:
    bounds = [_number(a) for a in call.args]
    if any(b is None for b in bounds):
        return None
    dtype = call.attr("dtype")
    return const(np.arange(*bounds, dtype=dtype), dtype)


def _fold_astype(call: rx.Call) -> rx.Expr | None:
    x = call.args[0]
    if not (isinstance(x, rx.Constant) and x.data.numpy().ndim == 0):
        return None
    return const(x.data.numpy().item(), call.attr("dtype"))


def _packed_shape_to_tensor(call: rx.Call) -> rx.Expr | None:
    s = call.args[0].struct_info
    if not isinstance(s, si.ShapeStructInfo) or s.values is not None:
        return None
    out = call.struct_info
    return rx.Call(CALL_PURE_PACKED, (rx.ExternFunc("relax.run.shape_to_tensor"),
                                      call.args[0]), sinfo_args=(out,), struct_info=out)


FOLD["relax.shape_to_tensor"] = _packed_shape_to_tensor
FOLD["relax.arange"] = _fold_arange
FOLD["relax.astype"] = _fold_astype
