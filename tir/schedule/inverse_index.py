"""Solving a consumer's load indices for its iter vars (what reverse_compute_inline needs).

A consumer reading `B[f(v)]` can be folded into B's producer only when `f` is one-to-one: the
producer then writes the consumer's output at `v = f^-1(b)` for each element `b` it computes.
Accepted forms, as TVM's iter-map analysis accepts them: each index of B is `F`, `F // s`,
`F % m` or `F // s % m` for a linear `F` of the consumer's iter vars, the indices sharing one
`F` split it exactly (strides 1, m1, m1*m2, ...), and `F` is a mixed-radix number of the iter
vars (coefficients 1, e1, e1*e2, ... for extents e1, e2, ...). Where the producer computes more
elements than the consumer reads, `guards` gives the conditions that keep it to those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..arith import affine
from ..expr import BinaryOp, BinOp, IntImm, PrimExpr, Var
from ..function import free_vars
from ..functor import simplify
from ..stmt import BlockRealize, Buffer
from .state import ScheduleError


@dataclass
class _Group:
    """Indices of B splitting one linear `F`: (dim, stride) innermost first, and F's vars
    as (var, coefficient, extent) by increasing coefficient."""

    dims: list[tuple[int, int]]
    terms: list[tuple[Var, int, PrimExpr]]
    f_max: int | None  # the largest F the buffer's extents allow, when they are constants


@dataclass
class Inverse:
    groups: list[_Group]
    unit_vars: list[Var]
    constants: dict[int, PrimExpr] = field(default_factory=dict)
    buffer: Buffer | None = None

    def _f(self, g: _Group, b: tuple[PrimExpr, ...]) -> PrimExpr:
        (d0, _), rest = g.dims[0], g.dims[1:]
        out = b[d0]
        for d, s in rest:
            out = BinOp(BinaryOp.ADD, out, BinOp(BinaryOp.MUL, b[d], IntImm(b[d].dtype, s)))
        return out

    def _decode(self, g: _Group, f: PrimExpr, k: int) -> PrimExpr:
        var, c, e = g.terms[k]
        x = f if c == 1 else BinOp(BinaryOp.FLOORDIV, f, IntImm(f.dtype, c))
        if k != len(g.terms) - 1:
            x = BinOp(BinaryOp.FLOORMOD, x, IntImm(f.dtype, e.value))  # type: ignore
        return x

    def consumer_vars(self, b: tuple[PrimExpr, ...]) -> dict[Var, PrimExpr]:
        """The consumer's iter vars as expressions of an element `b` of B."""
        out: dict[Var, PrimExpr] = {v: IntImm(v.dtype, 0) for v in self.unit_vars}
        for g in self.groups:
            f = self._f(g, b)
            for k, (var, _, _) in enumerate(g.terms):
                out[var] = self._decode(g, f, k)
        return out

    def guards(self, b: tuple[PrimExpr, ...]) -> list[PrimExpr]:
        """Conditions (`x < extent`) under which element `b` is one the consumer reads."""
        for d, value in self.constants.items():
            if simplify(b[d]) != value and not _is_one(self.buffer.shape[d]):  # type: ignore
                raise ScheduleError(f"reverse_compute_inline: the consumer reads "
                                    f"{self.buffer.name!r} only at index {value} of dim {d}, "  # type: ignore
                                    f"which its producer does not fix")
        out = []
        for g in self.groups:
            if not g.terms:
                continue
            var, c, e = g.terms[-1]
            if _covers(g, c, e, self.buffer):
                continue
            out.append(BinOp(BinaryOp.LT, self._decode(g, self._f(g, b), len(g.terms) - 1), e))
        return out


def _is_one(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value == 1


def _covers(g: _Group, c: int, e: PrimExpr, buf: Buffer | None) -> bool:
    """Does the outermost var's decoded value stay below its extent for every element?"""
    if g.f_max is not None and isinstance(e, IntImm):
        return g.f_max // c < e.value
    if buf is not None and len(g.dims) == 1 and c == 1:  # symbolic: B's dim is the extent
        return buf.shape[g.dims[0][0]] == e or simplify(buf.shape[g.dims[0][0]] - e) == 0
    return False


def split_index(index: PrimExpr) -> tuple[PrimExpr, int, int | None]:
    """`index` as (F, stride, modulus): `F // s % m`, `F % m`, `F // s` or `F`."""
    def const(e: PrimExpr) -> int | None:
        return e.value if isinstance(e, IntImm) and e.value > 0 else None

    if isinstance(index, BinOp) and index.op is BinaryOp.FLOORMOD and const(index.b):
        inner = index.a
        if isinstance(inner, BinOp) and inner.op is BinaryOp.FLOORDIV and const(inner.b):
            return inner.a, const(inner.b), const(index.b)  # type: ignore[return-value]
        return inner, 1, const(index.b)
    if isinstance(index, BinOp) and index.op is BinaryOp.FLOORDIV and const(index.b):
        return index.a, const(index.b), None  # type: ignore[return-value]
    return index, 1, None


def invert_load(consumer: BlockRealize, buf: Buffer, load: tuple[PrimExpr, ...],
                what: str) -> Inverse:
    name = consumer.block.name
    extents: dict[Var, PrimExpr] = {}
    for iv in consumer.block.iter_vars:
        if iv.dom is None or not (isinstance(iv.dom.min, IntImm) and iv.dom.min.value == 0):
            raise ScheduleError(f"{what}: iter var {iv.var.name!r} of block {name!r} must "
                                f"start at 0")
        extents[iv.var] = iv.dom.extent
    groups: list[tuple[PrimExpr, list[tuple[int, int, int | None]]]] = []
    constants: dict[int, PrimExpr] = {}
    for d, index in enumerate(load):
        f, s, m = split_index(index)
        if not set(free_vars(f)) & set(extents):
            constants[d] = simplify(index)
            continue
        hit = next((g for g in groups if g[0] == f), None)
        if hit is None:
            groups.append((f, [(d, s, m)]))
        else:
            hit[1].append((d, s, m))
    out, seen = [], set()
    for f, dims in groups:
        g = _group(f, dims, extents, buf, name, what)
        if seen & {t[0] for t in g.terms}:
            raise ScheduleError(f"{what}: block {name!r} reads {buf.name!r} with an iter var "
                                f"in two indices; the load is not one-to-one")
        seen |= {t[0] for t in g.terms}
        out.append(g)
    unused = [v for v in extents if v not in seen]
    if any(not _is_one(extents[v]) for v in unused):
        raise ScheduleError(f"{what}: block {name!r} reads the same element of {buf.name!r} "
                            f"for several iterations; the load is not one-to-one")
    return Inverse(out, unused, constants, buf)


def _group(f: PrimExpr, dims: list[tuple[int, int, int | None]], extents: dict[Var, PrimExpr],
           buf: Buffer, name: str, what: str) -> _Group:
    bad = ScheduleError(f"{what}: block {name!r} reads {buf.name!r} at indices that are not "
                        f"an exact split of its iter vars (a non-affine load)")
    dims = sorted(dims, key=lambda t: t[1])
    stride, f_max = 1, 0
    for k, (d, s, m) in enumerate(dims):
        dim = buf.shape[d]
        if s != stride or (m is None and k != len(dims) - 1):
            raise bad
        if m is not None:
            if k != len(dims) - 1 and not (isinstance(dim, IntImm) and dim.value <= m):
                raise bad
            stride = s * m
        if f_max is not None:
            f_max = f_max + (dim.value - 1) * s if isinstance(dim, IntImm) else None
    form = affine(f, set(extents))
    if form is None or simplify(form.base) != IntImm(form.base.dtype, 0):
        raise bad
    terms = sorted(((v, c, extents[v]) for v, c in form.coeffs.items()
                    if not _is_one(extents[v])), key=lambda t: t[1])
    if not terms and list(form.coeffs.values()) == [1]:  # `B[v]` for a unit v: v is b
        terms = [(v, 1, extents[v]) for v in form.coeffs]
    want = 1
    for k, (v, c, e) in enumerate(terms):
        if c != want or (k != len(terms) - 1 and not isinstance(e, IntImm)):
            raise bad
        want = c * e.value if isinstance(e, IntImm) else 0
    return _Group([(d, s) for d, s, _ in dims], terms, f_max)


def canonical(e: PrimExpr) -> Any:
    """An affine `e` written as TVM's simplifier prints it: terms by decreasing coefficient."""
    vars_ = set(free_vars(e))
    form = affine(e, vars_)
    if form is None:
        return simplify(e)
    terms = sorted(form.coeffs.items(), key=lambda t: -t[1])
    out: PrimExpr | None = None
    for v, c in terms:
        t = v if c == 1 else BinOp(BinaryOp.MUL, v, IntImm(v.dtype, c))
        out = t if out is None else BinOp(BinaryOp.ADD, out, t)
    base = simplify(form.base)
    if out is None:
        return base
    if not (isinstance(base, IntImm) and base.value == 0):
        out = BinOp(BinaryOp.ADD, out, base)
    return out
