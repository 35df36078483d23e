"""Compile-time bounds check of buffer accesses: a PROVEN out-of-bounds index is a located error.

Run on a function whose blocks are lowered (loops only, N-d accesses, original buffer shapes).
An index is checked only where everything about it is known and nothing guards it:
- it is affine (no `//`, `%`) in enclosing loop vars whose min and extent are constants, with a
  constant base: then the exact range of values it takes is `[lo, hi]`, each loop var sweeping
  its range independently, and every loop having at least one iteration;
- the buffer's dim is a constant;
- the buffer is a parameter's or an allocation (not a view declared over other data);
- no `if`, `T.where`, `T.if_then_else`, `T.Select` or `while` encloses it (a guard may keep
  the bad iterations from running, as in a padded conv), and no `let` binds a var it uses.
Anything else is left alone: this check must never reject a valid program. Unproven accesses
can be checked at run time (bounds_instrument.py).
"""

from __future__ import annotations

import linecache
from typing import Any

from ..script.diagnostics import DiagnosticError, SourceText
from .arith import affine
from .expr import BinaryOp, BinOp, BufferLoad, Call, IntImm, PrimExpr, Select, Span, Var
from .function import PrimFunc, free_vars
from .functor import Visitor, simplify
from .stmt import Allocate, BufferStore, For, IfThenElse, LetStmt, While


def _int(e: PrimExpr) -> int | None:
    e = simplify(e)
    return e.value if isinstance(e, IntImm) else None


def _has_divmod(e: PrimExpr) -> bool:
    found: list[bool] = []

    class _Find(Visitor):
        def visit_BinOp(self, n: BinOp) -> None:
            if n.op in (BinaryOp.DIV, BinaryOp.MOD, BinaryOp.FLOORDIV, BinaryOp.FLOORMOD):
                found.append(True)
            self.generic_visit(n)

    _Find().visit(e)
    return bool(found)


def index_range(e: PrimExpr, loops: dict[Var, tuple[int, int]]) -> tuple[int, int] | None:
    """The exact `[lo, hi]` of `e` over `loops` (var -> (min, extent >= 1)), or None if unknown."""
    if _has_divmod(e) or not all(v in loops for v in free_vars(e)):
        return None
    form = affine(e, set(loops))
    base = None if form is None else _int(form.base)
    if base is None:
        return None
    lo = hi = base
    for v, c in form.coeffs.items():
        first, extent = loops[v]
        ends = (c * first, c * (first + extent - 1))
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi


class _Checker(Visitor):
    def __init__(self, func: PrimFunc) -> None:
        # NOTE: only the function's own buffers and its allocations: a buffer declared over
        # another's data (T.decl_buffer, a flat view) may legitimately be indexed past its shape
        self.owned = {id(b) for _, b in func.buffer_map}
        self.loops: dict[Var, tuple[int, int]] = {}
        self.guarded = 0
        self.stmt_span: Span | None = None
        self.found: tuple[Any, ...] | None = None

    def visit_For(self, s: For) -> None:
        lo, n = _int(s.min), _int(s.extent)
        self.visit(s.min)
        self.visit(s.extent)
        if lo is None or n is None or n < 1:
            self.guarded += 1  # an unknown or empty loop: what it reaches is not proven
            self.visit(s.body)
            self.guarded -= 1
            return
        self.loops[s.loop_var] = (lo, n)
        self.visit(s.body)
        del self.loops[s.loop_var]

    def _guard(self, cond: Any, *branches: Any) -> None:
        self.visit(cond)
        self.guarded += 1
        for b in branches:
            self.visit(b)
        self.guarded -= 1

    def visit_IfThenElse(self, s: IfThenElse) -> None:
        self._guard(s.condition, s.then_case, s.else_case)

    def visit_While(self, s: While) -> None:
        self._guard(s.condition, s.body)

    def visit_LetStmt(self, s: LetStmt) -> None:
        self._guard(s.value, s.body)  # a let-bound var is not a loop var: nothing is proven

    def visit_Select(self, e: Select) -> None:
        self._guard(e.condition, e.true_value, e.false_value)

    def visit_Call(self, e: Call) -> None:
        if e.op in ("tir.if_then_else", "if_then_else") and len(e.args) == 3:
            self._guard(e.args[0], e.args[1], e.args[2])
        else:
            self.generic_visit(e)

    def visit_Allocate(self, s: Allocate) -> None:
        self.owned.add(id(s.buffer))
        self.generic_visit(s)

    def visit_BufferStore(self, s: BufferStore) -> None:
        outer, self.stmt_span = self.stmt_span, s.span or self.stmt_span
        self.visit(s.value)
        self.visit(s.indices)
        self._access(s.buffer, s.indices, s.span)
        self.stmt_span = outer

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.visit(e.indices)
        self._access(e.buffer, e.indices, e.span or self.stmt_span)

    def _access(self, buf: Any, indices: tuple[PrimExpr, ...], span: Span | None) -> None:
        if (self.guarded or self.found is not None or len(indices) != len(buf.shape)
                or id(buf) not in self.owned):
            return
        for axis, (index, dim) in enumerate(zip(indices, buf.shape)):
            extent = _int(dim)
            window = None if extent is None else index_range(index, self.loops)
            if window is not None and (window[0] < 0 or window[1] >= extent):  # type: ignore
                self.found = (buf, axis, index, window, extent, span)
                return


class TIRBoundsError(DiagnosticError, IndexError):
    """A buffer access proven out of bounds at compile time (located, like a parse error)."""


def check_bounds(func: PrimFunc, name: str) -> None:
    """Raise `TIRBoundsError` for an access proven out of bounds for a reachable iteration."""
    checker = _Checker(func)
    checker.visit(func.body)
    if checker.found is None:
        return
    buf, axis, index, (lo, hi), extent, span = checker.found
    where = f" along axis {axis}" if len(buf.shape) > 1 else ""
    message = (f"index out of bounds in prim_func {name!r}: {buf.name}[{_text(index)}] "
               f"takes values {lo}..{hi}{where}, but {buf.name} has extent {extent} there "
               f"(valid indices 0..{extent - 1})")
    source = None
    if span is not None:
        lines = linecache.getlines(span.source_name)
        source = SourceText(span.source_name, tuple(lines)) if lines else None
    raise TIRBoundsError(message, span, source)


def _text(e: PrimExpr) -> str:
    from ..script.printer.common import ExprPrinter  # NOTE: lazy: only needed on error

    try:
        return ExprPrinter(lambda v: getattr(v, "name", "?"))(e)
    except (TypeError, AttributeError):
        return repr(e)
