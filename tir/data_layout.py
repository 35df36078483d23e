"""Data layouts as strings (`tvm.s_tir.slayout("NCHW16c")`) and the index/shape maps between two
of them (`tvm.s_tir.sbijective_layout("NCHW", "NCHW16c")`), as TVM 0.27 defines them.

A layout is a sequence of axes: an upper-case letter is a primal axis (`C`, the whole channel
dimension), a number and a lower-case letter a subordinate one (`16c`: channels split by 16,
the inner part). Two layouts over the same primal letters map into each other: each primal
index is recombined from its outer and inner parts (`C = c_outer * 16 + c_inner`), then split
again for the other layout. Shapes round a split dimension up (`(n + 15) // 16`).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .expr import IntImm, PrimExpr, Var, const
from .functor import simplify
from .stmt import IterType, IterVar, Range

_TOKEN = re.compile(r"(\d*)([A-Za-z])")


class SLayout:
    """A layout string such as `NCHW16c` (TVM's `tvm.s_tir.SLayout`)."""

    def __init__(self, name: str, axes: Sequence[IterVar] | None = None) -> None:
        self.name = name
        self._parts = _parse(name)  # (letter, factor or 0 for a primal axis) per axis
        self.axes = tuple(axes) if axes is not None else tuple(
            IterVar(Var(_axis_name(letter, f), "int32"), Range(const(0, "int32"), const(
                f, "int32") if f else Var(letter, "int32")), IterType.SPATIAL)
            for letter, f in self._parts)

    def __len__(self) -> int:
        return len(self._parts)

    def __contains__(self, axis: str) -> bool:
        return any(letter == axis for letter, _ in self._parts)

    def __getitem__(self, index: int) -> str:
        letter, factor = self._parts[index]
        return _axis_name(letter, factor)

    def index_of(self, axis: str) -> int:
        """The position of the axis named `axis` (`"C"`, `"16c"`), or -1."""
        names = [_axis_name(letter, f) for letter, f in self._parts]
        return names.index(axis) if axis in names else -1

    def factor_of(self, axis: str) -> int:
        """The split factor of `axis`'s subordinate axis (either case of its letter), or -1."""
        sub = axis.lower()
        return next((f for letter, f in self._parts if letter == sub and f), -1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SLayout) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"SLayout({self.name})"


def _axis_name(letter: str, factor: int) -> str:
    return f"{factor}{letter}" if factor else letter


def _parse(name: str) -> list[tuple[str, int]]:
    parts, pos = [], 0
    for m in _TOKEN.finditer(name):
        if m.start() != pos:
            break
        digits, letter = m.groups()
        if letter.isupper() and digits:
            raise ValueError(f"Invalid layout {name}: invalid factor size {digits} before "
                             f"dimension {letter}")
        if letter.islower() and not (digits and int(digits) > 0):
            raise ValueError(f"Invalid layout {name}: invalid factor size 0 for dimension "
                             f"{letter}")
        if letter.islower() and any(p == letter for p, _ in parts):
            raise ValueError(f"Invalid layout {name}: found more than one subordinate {letter}")
        parts.append((letter, int(digits) if letter.islower() else 0))
        pos = m.end()
    if pos != len(name):
        raise ValueError(f"Invalid layout {name}: unexpected {name[pos:]!r}")
    for letter, factor in parts:
        if factor and letter.upper() not in {p for p, f in parts if not f}:
            raise ValueError(f"Invalid layout {name}: subordinate {letter} without its primal "
                             f"axis {letter.upper()}")
    return parts


class SBijectiveLayout:
    """The index and shape maps from layout `src_layout` to `dst_layout` and back."""

    def __init__(self, src_layout: SLayout, dst_layout: SLayout) -> None:
        primal = [{p for p, f in lay._parts if not f} for lay in (src_layout, dst_layout)]
        if primal[0] != primal[1]:
            raise ValueError(f"cannot convert layout {src_layout.name} to {dst_layout.name}: "
                             "they have different primal axes")
        self.src_layout, self.dst_layout = src_layout, dst_layout

    def forward_index(self, index: Sequence[Any]) -> tuple[PrimExpr, ...]:
        return _convert(self.src_layout, self.dst_layout, index, ceil=False)

    def backward_index(self, index: Sequence[Any]) -> tuple[PrimExpr, ...]:
        return _convert(self.dst_layout, self.src_layout, index, ceil=False)

    def forward_shape(self, shape: Sequence[Any]) -> tuple[PrimExpr, ...]:
        return _convert(self.src_layout, self.dst_layout, shape, ceil=True)

    def backward_shape(self, shape: Sequence[Any]) -> tuple[PrimExpr, ...]:
        return _convert(self.dst_layout, self.src_layout, shape, ceil=True)


def _convert(src: SLayout, dst: SLayout, values: Sequence[Any], ceil: bool
             ) -> tuple[PrimExpr, ...]:
    if len(values) != len(src):
        raise ValueError(f"layout {src.name} has {len(src)} axes, got {len(values)} values")
    vals = [v if isinstance(v, PrimExpr) else const(int(v), "int32") for v in values]
    by_axis = {_axis_name(p, f): v for (p, f), v in zip(src._parts, vals)}
    whole = {}  # primal letter -> the whole (unsplit) index or extent
    for p, f in src._parts:
        if f:
            continue
        inner_factor = src.factor_of(p)
        outer = by_axis[p]
        whole[p] = outer if inner_factor < 0 else (
            outer * inner_factor if ceil else outer * inner_factor + by_axis[f"{inner_factor}"
                                                                             f"{p.lower()}"])
    out = []
    for p, f in dst._parts:
        if f:
            out.append(const(f, "int32") if ceil else whole[p.upper()] % f)
            continue
        factor = dst.factor_of(p)
        if factor < 0:
            out.append(whole[p])
        else:
            out.append((whole[p] + (factor - 1)) // factor if ceil else whole[p] // factor)
    return tuple(_tidy(simplify(e)) for e in out)


def _tidy(e: PrimExpr) -> PrimExpr:
    return IntImm(e.dtype, e.value) if isinstance(e, IntImm) else e


def slayout(layout_str: str | SLayout, dtype: str = "int32") -> SLayout | None:
    """`tvm.s_tir.slayout`: the layout of a string; None for "" and "__undef__" (no layout)."""
    if isinstance(layout_str, SLayout):
        return layout_str
    if layout_str in ("", "__undef__"):
        return None
    return SLayout(layout_str)


def sbijective_layout(src_layout: str | SLayout, dst_layout: str | SLayout) -> SBijectiveLayout:
    """`tvm.s_tir.sbijective_layout`: the maps between two layouts of the same primal axes."""
    src, dst = slayout(src_layout), slayout(dst_layout)
    if src is None or dst is None:
        raise ValueError("sbijective_layout needs two defined layouts")
    return SBijectiveLayout(src, dst)
