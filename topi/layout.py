"""`topi.layout_transform(x, "NCHW", "NCHW16c")`: data layouts named by letters, as TVM's.

An upper-case letter is a primal axis; `16c` is a sub-axis of C of 16 (C then counts blocks).
Elements past the end of a padded axis read 0, as TVM's transform pads them.
"""

from __future__ import annotations

import re

from .. import te
from ..tir import expr as tx
from .api_ext import get_const_tuple

B = tx.BinaryOp


def _parse(layout: str) -> list[tuple[str, int]]:
    """[(letter, factor)]; factor 0 for a primal (upper-case) axis."""
    tokens = re.findall(r"(\d*)([A-Za-z])", layout)
    if "".join(f + c for f, c in tokens) != layout:
        raise ValueError(f"topi.layout_transform: cannot read layout {layout!r}")
    out = []
    for factor, letter in tokens:
        if letter.isupper() != (factor == ""):
            raise ValueError(f"topi.layout_transform: in {layout!r}, {factor}{letter}: a "
                             "sub-axis is a number and a lower-case letter")
        out.append((letter, int(factor) if factor else 0))
    return out


def _sub_factors(axes: list[tuple[str, int]]) -> dict[str, int]:
    return {c.upper(): f for c, f in axes if f}


def layout_transform(array: te.Tensor, src_layout: str, dst_layout: str,
                     schedule_rule: str = "None") -> te.Tensor:
    src, dst = _parse(src_layout), _parse(dst_layout)
    if len(src) != array.ndim:
        raise ValueError(f"topi.layout_transform: layout {src_layout!r} has {len(src)} axes, "
                         f"the tensor {array.ndim}")
    primal = sorted(c for c, f in src if not f)
    if primal != sorted(c for c, f in dst if not f):
        raise ValueError(f"topi.layout_transform: {src_layout!r} and {dst_layout!r} do not "
                         "name the same axes")
    dims = get_const_tuple(array.shape)
    sub_src, sub_dst = _sub_factors(src), _sub_factors(dst)
    size = {c: dims[k] * sub_src.get(c, 1) for k, (c, f) in enumerate(src) if not f}
    shape = [f if f else -(-size[c] // sub_dst.get(c, 1)) for c, f in dst]

    def body(*i: tx.PrimExpr) -> tx.PrimExpr:
        at = {(c, f): v for (c, f), v in zip(dst, i)}
        full = {}
        for c in primal:
            f = sub_dst.get(c)
            full[c] = at[(c, 0)] * f + at[(c.lower(), f)] if f else at[(c, 0)]
        src_idx = []
        for c, f in src:
            p = c.upper()
            outer = sub_src.get(p)
            if f:
                src_idx.append(tx.binop(B.FLOORMOD, full[p], tx.const(f, "int64")))
            else:
                src_idx.append(tx.binop(B.FLOORDIV, full[p], tx.const(outer, "int64"))
                               if outer else full[p])
        inside = te.all(*(tx.binop(B.LT, full[c], tx.const(size[c], "int64")) for c in primal))
        return tx.Select(inside, array[tuple(src_idx)], tx.const(0, array.dtype))
    return te.compute(tuple(shape), body, name="T_layout_trans")
