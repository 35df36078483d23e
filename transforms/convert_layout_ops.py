"""ConvertLayout's rules for operators that name a layout or index along axes: pooling and
resize (their `layout` attribute), batch_norm and split (an axis, a tuple result), the scatter /
gather family (indices that move with the data), and expand_dims / squeeze (which leave the
original axes in another order).

A rule takes the converter and the call whose first operand is held converted; it returns the
call in NHWC (its result NHWC too), a `Fields` for a tuple result (which fields are NHWC), a
`Permuted` for a result in another axis order, or None to leave the call as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.op import with_inferred_struct_info
from ..tir.attrs import Attrs

TO_NHWC = [0, 2, 3, 1]
POS = [TO_NHWC.index(a) for a in range(4)]  # where original axis a sits in NHWC: [0, 3, 1, 2]

# operators that run in the layout their `layout` attribute names
LAYOUT_OPS = ("relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.nn.adaptive_avg_pool2d",
              "relax.image.resize2d")


@dataclass(frozen=True)
class Permuted:
    """A converted call whose result holds the original's axes in another order: axis i of
    the result is axis `perm[i]` of the original result."""

    expr: rx.Expr
    perm: tuple[int, ...]


@dataclass(frozen=True)
class Fields:
    """A converted call with a tuple result: `nhwc[i]` tells whether field i is NHWC."""

    expr: rx.Expr
    nhwc: tuple[bool, ...]


def rank(e: rx.Expr) -> int:
    s = e.struct_info
    return s.ndim if isinstance(s, si.TensorStructInfo) else -1


def axis_of(v: Any) -> int:
    """An original (NCHW) axis, negative ones counted from the end."""
    return int(getattr(v, "value", v)) % 4


def remake(call: rx.Call, args: tuple[rx.Expr, ...], **changed: Any) -> rx.Call:
    attrs = Attrs(tuple((k, changed.get(k, v)) for k, v in call.attrs))
    return with_inferred_struct_info(replace(call, args=args, attrs=attrs, struct_info=None))


def in_nhwc_layout(cv: Any, call: rx.Call) -> rx.Call | None:
    """Pooling or resize of NCHW data: the same operator on the NHWC data, with `layout`
    (and `out_layout`, where the call has one) NHWC."""
    if (call.attr("layout") or "NCHW") != "NCHW" or (call.attr("out_layout") or "NCHW") \
            != "NCHW":
        return None
    changed = {"layout": "NHWC"}
    if call.attr("out_layout") is not None:
        changed["out_layout"] = "NHWC"
    return remake(call, (cv.as_nhwc(call.args[0]),) + call.args[1:], **changed)


def batch_norm(cv: Any, call: rx.Call) -> Fields:
    """The normalized data stays NHWC; the statistics (1-d, per channel) do not move."""
    new = remake(call, (cv.nhwc[call.args[0]],) + call.args[1:],
                 axis=POS[axis_of(call.attr("axis"))])
    return Fields(new, (True, False, False))


def split(cv: Any, call: rx.Call) -> Fields | None:
    new = remake(call, (cv.nhwc[call.args[0]],) + call.args[1:],
                 axis=POS[axis_of(call.attr("axis"))])
    sinfo = new.struct_info
    count = len(sinfo.fields) if isinstance(sinfo, si.TupleStructInfo) else 0
    return Fields(new, (True,) * count) if count else None


def scatter_elements(cv: Any, call: rx.Call) -> rx.Call | None:
    """Indices and updates index the data element by element: they move with it."""
    data, indices, updates = call.args
    if rank(indices) != 4 or rank(updates) != 4:
        return None
    return remake(call, (cv.nhwc[data], cv.as_nhwc(indices), cv.as_nhwc(updates)),
                  axis=POS[axis_of(call.attr("axis"))])


def gather_elements(cv: Any, call: rx.Call) -> rx.Call | None:
    data, indices = call.args
    if rank(indices) != 4:
        return None
    return remake(call, (cv.nhwc[data], cv.as_nhwc(indices)),
                  axis=POS[axis_of(call.attr("axis"))])


def scatter_nd(cv: Any, call: rx.Call) -> rx.Call | None:
    """Indices address the leading axes of the data: when those stay in place (the batch axis
    only), the updates move with the data and the indices do not."""
    data, indices, updates = call.args
    s = indices.struct_info
    depth = s.static_shape[-1] if isinstance(s, si.TensorStructInfo) and s.static_shape else None
    if depth != 1 or rank(indices) != 2 or rank(updates) != 4:
        return None
    return remake(call, (cv.nhwc[data], indices, cv.as_nhwc(updates)))


def _axes(v: Any, rank: int) -> list[int]:
    items = v if isinstance(v, (list, tuple)) else [v]
    return [int(getattr(a, "value", a)) % rank for a in items]


def expand_dims(cv: Any, call: rx.Call) -> Permuted:
    """The new unit axes go where the call puts them (its axes unchanged, as TVM keeps them);
    the data's axes fill the others in the data's order."""
    perm, axis = cv.perm_of(call.args[0]), call.attr("axis")
    rank = len(perm) + (len(axis) if isinstance(axis, (list, tuple)) else 1)
    new = set(_axes(axis, rank))
    rest = [i for i in range(rank) if i not in new]  # where the data's axes land
    out = list(range(rank))
    for i, q in enumerate(rest):
        out[q] = rest[perm[i]]
    return Permuted(remake(call, (cv.nhwc[call.args[0]],)), tuple(out))


def squeeze(cv: Any, call: rx.Call) -> Permuted | None:
    """The unit axes the call drops, found where the converted value holds them."""
    if call.attr("axis") is None:
        return None
    perm = cv.perm_of(call.args[0])
    drop = set(_axes(call.attr("axis"), len(perm)))
    where = tuple(i for i, a in enumerate(perm) if a in drop)
    kept = [a for a in perm if a not in drop]
    order = {a: j for j, a in enumerate(sorted(kept))}
    new = remake(call, (cv.nhwc[call.args[0]],), axis=where)
    return Permuted(new, tuple(order[a] for a in kept))


# operators that may reorder a converted value's axes (any order in, any order out)
REORDER_RULES = {"relax.expand_dims": expand_dims, "relax.squeeze": squeeze}

RULES = {
    **{name: in_nhwc_layout for name in LAYOUT_OPS},
    "relax.nn.batch_norm": batch_norm, "relax.split": split,
    "relax.scatter_elements": scatter_elements, "relax.gather_elements": gather_elements,
    "relax.scatter_nd": scatter_nd,
}
