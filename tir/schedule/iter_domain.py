"""What compute_at and reverse_compute_at compute: the region of a buffer the blocks under a
loop touch in one of its iterations, and the iter-var domain of the moved block that matches it.

Regions are windows `(min, extent)` per buffer dim, `min` written over the loops outside the
target loop. A block's region is its declared `T.reads`/`T.writes` when it has them (as TVM
uses them), else the points its body loads or stores (nested blocks included, their loops
swept). Windows are relaxed over the loops between the target loop and the block, over the
thread loops whose threads share the buffer (TVM's rule: a buffer's storage rank against the
thread rank). What cannot be bounded is the whole dim: safe for a producer.
"""

from __future__ import annotations

from math import gcd
from typing import Any

from ..arith import affine, bound, constant_difference
from ..expr import BinaryOp, BinOp, BufferLoad, IntImm, PrimExpr, Var
from ..functor import Visitor, simplify, substitute
from ..stmt import Block, BlockRealize, Buffer, BufferStore, For
from . import tree
from .inverse_index import split_index

Window = tuple[PrimExpr, int]
Ranges = dict[Var, tuple[PrimExpr, int]]

_STORAGE_RANK = {"global": 0, "shared": 1, "shared.dyn": 1, "warp": 2, "local": 3}


def _thread_rank(tag: str) -> int | None:
    if tag.startswith("blockIdx"):
        return 0
    if tag.startswith(("threadIdx", "vthread", "cthread")):
        return 1
    return None


def relaxed_threads(lpath: tree.Path, buf: Buffer) -> Ranges:
    """Thread-bound loops on `lpath` that every thread of `buf`'s storage sees the whole of."""
    rank = _STORAGE_RANK.get(buf.scope.split(".")[0] if buf.scope.startswith("wmma") else
                             buf.scope, 3)
    out: Ranges = {}
    for s in lpath:
        if isinstance(s, For) and isinstance(s.extent, IntImm) and s.thread_tag:
            t = _thread_rank(s.thread_tag)
            if t is not None and rank <= t:
                out[s.loop_var] = (s.min, s.extent.value)
    return out


class _Points(Visitor):
    """(buffer, [(min, extent)] per dim) of the loads or stores below a block's body, nested
    blocks seen through their bindings and their loops swept."""

    def __init__(self, buf: Buffer, reads: bool) -> None:
        self.buf, self.reads = buf, reads
        self.found: list[list[tuple[PrimExpr, PrimExpr]]] = []
        self.vmap: dict[Var, PrimExpr] = {}
        self.loops: Ranges = {}

    def _add(self, indices: tuple[PrimExpr, ...]) -> None:
        dims = []
        for i in indices:
            i = substitute(i, self.vmap)
            w = window(i, self.loops) if self.loops else (i, 1)
            dims.append((w[0], IntImm("int32", w[1])) if w else (None, None))
        self.found.append(dims)  # type: ignore[arg-type]

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        if self.reads and e.buffer is self.buf:
            self._add(e.indices)
        self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> None:
        if not self.reads and s.buffer is self.buf:
            self._add(s.indices)
        self.generic_visit(s)

    def visit_For(self, s: For) -> None:
        ext = simplify(s.extent)
        if isinstance(ext, IntImm):
            self.loops[s.loop_var] = (substitute(s.min, self.vmap), ext.value)
        self.generic_visit(s)

    def visit_BlockRealize(self, s: BlockRealize) -> None:
        declared = s.block.reads if self.reads else s.block.writes
        binds = {iv.var: substitute(v, self.vmap) for iv, v in
                 zip(s.block.iter_vars, s.iter_values)}
        if declared:
            outer = self.vmap
            self.vmap = {**outer, **binds}
            for r in declared:
                if r.buffer is self.buf:
                    self._add_region(r.region)
            self.vmap = outer
            return
        outer = self.vmap
        self.vmap = {**outer, **binds}
        self.visit(s.block.body)
        if s.block.init is not None:
            self.visit(s.block.init)
        self.vmap = outer

    def _add_region(self, region: Any) -> None:
        dims = []
        for r in region:
            lo = substitute(r.min, self.vmap)
            w = window(lo, self.loops) if self.loops else (lo, 1)
            ext = simplify(r.extent)
            if w is None or not isinstance(ext, IntImm):
                dims.append((None, None))
            else:
                dims.append((w[0], IntImm("int32", w[1] + ext.value - 1)))
        self.found.append(dims)


def block_region(br: BlockRealize, buf: Buffer, reads: bool
                 ) -> list[list[tuple[PrimExpr, PrimExpr]]]:
    """Regions of `buf` one block touches, over its own iter vars (declared or found)."""
    finder = _Points(buf, reads)
    declared = br.block.reads if reads else br.block.writes
    if declared:
        for r in declared:
            if r.buffer is buf:
                finder.found.append([(x.min, x.extent) for x in r.region])
        return finder.found
    finder.visit(br.block.body)
    if br.block.init is not None:
        finder.visit(br.block.init)
    return finder.found


def needed_region(paths: list[tree.Path], loop: For, lpath: tree.Path, buf: Buffer,
                  reads: bool) -> list[Window | None]:
    """The window per dim of `buf` that the blocks at `paths` (all under `loop`) read (or
    write) during one iteration of `loop`."""
    relaxed = relaxed_threads(lpath, buf)
    outer = {s.loop_var: (s.min, s.extent.value) for s in lpath
             if isinstance(s, For) and isinstance(s.extent, IntImm)}
    per_dim: list[list[Window | None]] = [[] for _ in buf.shape]
    for path in paths:
        br: BlockRealize = path[-1]  # type: ignore[assignment]
        ranges = {**relaxed, **_inner_ranges(path, loop)}
        binds = {iv.var: v for iv, v in zip(br.block.iter_vars, br.iter_values)}
        for dims in block_region(br, buf, reads):
            for d, (lo, ext) in enumerate(dims):
                if lo is None or not isinstance(simplify(ext), IntImm):
                    per_dim[d].append(None)
                    continue
                w = window(simplify(substitute(lo, binds)), ranges, outer)
                per_dim[d].append(None if w is None else (w[0], w[1] + simplify(ext).value - 1))
    return [_union(ws, dim) for ws, dim in zip(per_dim, buf.shape)]


def _inner_ranges(path: tree.Path, loop: For) -> Ranges:
    start = next(i for i, s in enumerate(path) if s is loop)
    out: Ranges = {}
    for s in path[start + 1:]:
        if isinstance(s, For):
            ext = simplify(s.extent)
            if isinstance(ext, IntImm):
                out[s.loop_var] = (s.min, ext.value)
    return out


def _union(windows: list[Window | None], dim: PrimExpr) -> Window | None:
    if not windows or any(w is None for w in windows):
        return None
    lo, ext = windows[0]  # type: ignore[misc]
    lo_off, hi_off = 0, ext
    for w_lo, w_ext in windows[1:]:  # type: ignore[misc]
        d = constant_difference(w_lo, lo)
        if d is None:
            return None
        lo_off, hi_off = min(lo_off, d), max(hi_off, d + w_ext)
    if lo_off:
        lo = simplify(lo + IntImm(lo.dtype, lo_off))
    return lo, hi_off - lo_off


def window(e: PrimExpr, ranges: Ranges, outer: Ranges | None = None) -> Window | None:
    """`bound`, plus floor division of a window by a constant, as TVM's analyzer divides
    (`outer`: the ranges of the vars the window's start may use)."""
    if isinstance(e, BinOp) and e.op is BinaryOp.FLOORDIV and isinstance(e.b, IntImm):
        inner = window(e.a, ranges, outer)
        return None if inner is None else div_window(inner[0], inner[1], e.b.value, outer)
    return bound(e, ranges)


def div_window(lo: PrimExpr, n: int, c: int, outer: Ranges | None = None) -> Window | None:
    """The quotients by `c` of the window `[lo, lo + n)`, when they form a window TVM's
    simplifier writes: `lo`'s coefficients divisible by c, `lo = a * x` with a | c, or else
    (the vars' ranges known) the quotients' floor `sum(a // c * x)` and the widest extent."""
    if c == 1:
        return lo, n
    from ..function import free_vars

    form = affine(lo, set(free_vars(lo)))
    if form is None:
        return None
    base = simplify(form.base)
    if not isinstance(base, IntImm):
        return None
    k = base.value
    if all(a % c == 0 for a in form.coeffs.values()):
        out: PrimExpr = IntImm(lo.dtype, k // c)
        for v, a in form.coeffs.items():
            term = v if a == c else BinOp(BinaryOp.MUL, v, IntImm(v.dtype, a // c))
            out = term if isinstance(out, IntImm) and out.value == 0 else out + term
        return simplify(out), (k + n - 1) // c - k // c + 1
    if len(form.coeffs) == 1 and k == 0:
        (v, a), = form.coeffs.items()
        if a > 0 and c % a == 0:
            worst = c - gcd(a, c)
            return BinOp(BinaryOp.FLOORDIV, v, IntImm(v.dtype, c // a)), (worst + n - 1) // c + 1
    return _floor_window(form.coeffs, k, n, c, outer or {})


def _floor_window(coeffs: dict[Var, int], k: int, n: int, c: int, outer: Ranges
                  ) -> Window | None:
    spans = {v: outer.get(v) for v in coeffs}
    if any(r is None or simplify(r[0]) != IntImm(r[0].dtype, 0) or a < 0
           for (v, a), r in zip(coeffs.items(), spans.values())):
        return None
    out: PrimExpr | None = None
    top = k + n - 1
    for v, a in coeffs.items():
        q = a // c
        top += (a % c) * (spans[v][1] - 1)  # type: ignore[index]
        if q:
            term = v if q == 1 else BinOp(BinaryOp.MUL, v, IntImm(v.dtype, q))
            out = term if out is None else BinOp(BinaryOp.ADD, out, term)
    dtype = next(iter(coeffs)).dtype
    if out is None:
        out = IntImm(dtype, k // c)
    elif k // c:
        out = BinOp(BinaryOp.ADD, out, IntImm(dtype, k // c))
    return out, top // c - k // c + 1


def solve(block: Block, regions: list[list[tuple[PrimExpr, PrimExpr]]],
          needed: list[Window | None]) -> dict[Var, Window]:
    """The windows of `block`'s iter vars whose accesses `regions` meet the `needed` windows
    (one per dim); vars no dim constrains keep their whole domain."""
    own = {iv.var: iv for iv in block.iter_vars}
    found: dict[Var, Window] = {}
    for dims in regions:
        for (lo, ext), want in zip(dims, needed):
            if want is None or lo is None:
                continue
            hit = _solve_dim(lo, simplify(ext), want, own)
            if hit is not None:
                var, w = hit
                found[var] = intersect(found[var], w) if var in found else w
    out = {}
    for v, w in found.items():
        iv = own[v]
        out[v] = _clip(w, iv.dom.min, iv.dom.extent)
    return out


def _solve_dim(index: PrimExpr, ext: PrimExpr, want: Window, own: dict[Var, Any]
               ) -> tuple[Var, Window] | None:
    lo, n = want
    if isinstance(ext, IntImm) and ext.value == 1:
        f, s, m = split_index(index)
        if m is not None:
            return None  # a remainder constrains nothing TVM keeps (and full ones nothing)
        lo, n = simplify(lo * s) if s != 1 else lo, n * s
        index, rest = f, 1
    elif isinstance(ext, IntImm):
        rest = ext.value
    else:
        return None
    form = affine(index, set(own))
    if form is None or not form.coeffs:
        return None
    base = simplify(form.base)
    if not isinstance(base, IntImm):
        return None
    (var, c), *others = sorted(form.coeffs.items(), key=lambda t: -abs(t[1]))
    if others:  # `c * v + rest` where the other vars fill exactly [0, c)
        inner = sum((BinOp(BinaryOp.MUL, v, IntImm(v.dtype, a)) for v, a in others),
                    start=IntImm(var.dtype, 0))
        r = bound(inner, {v: (own[v].dom.min, own[v].dom.extent.value) for v, _ in others
                          if isinstance(own[v].dom.extent, IntImm)})
        if c <= 0 or r is None or simplify(r[0]) != IntImm(r[0].dtype, 0) or r[1] > c:
            return None
    if c == -1 and rest == 1:  # `base - v`: a reversed index
        start = simplify(base - (lo + IntImm(lo.dtype, n - 1)))
        return var, (start, n)
    if c <= 0:
        return None
    shifted = simplify(lo - base) if base.value else lo
    w = div_window(shifted, n, c)
    return None if w is None else (var, w)


def intersect(a: Window, b: Window) -> Window:
    d = constant_difference(b[0], a[0])
    if d is None:  # both hold the intersection: the narrower, else the one with a known start
        if a[1] != b[1]:
            return a if a[1] < b[1] else b
        return b if isinstance(b[0], IntImm) and not isinstance(a[0], IntImm) else a
    lo_off, hi_off = max(0, d), min(a[1], d + b[1])
    lo = simplify(a[0] + IntImm(a[0].dtype, lo_off)) if lo_off else a[0]
    return lo, max(hi_off - lo_off, 1)


def _clip(w: Window, dmin: PrimExpr, dext: PrimExpr) -> Window:
    """`w` within the domain where that is decidable, else `w` as it is (a predicate will
    guard it)."""
    lo, n = w
    if isinstance(dext, IntImm) and n >= dext.value:
        d = constant_difference(lo, dmin)
        if d is not None and d <= 0 <= d + n - dext.value:
            return dmin, dext.value
    if isinstance(lo, IntImm) and isinstance(dmin, IntImm) and isinstance(dext, IntImm):
        a, b = max(lo.value, dmin.value), min(lo.value + n, dmin.value + dext.value)
        return IntImm(lo.dtype, a), max(b - a, 1)
    return lo, n
