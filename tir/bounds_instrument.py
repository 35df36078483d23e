"""Run-time bounds checks (TVM's `tir.instrument_bound_checkers`, env `TVMLITE_BOUNDS_CHECK=1`).

Before each statement that stores or loads a buffer element whose index is not proven in
bounds (bounds.py, `index_range`), insert

    if not (0 <= index < extent): tvmlite.bounds_fail("kernel K: buffer A ...", index)
    assert 0 <= index < extent   # the kernel returns early: no out-of-bounds access happens

The call reports to the runtime (vm/bounds_runtime.py), which raises an `IndexError` naming
the kernel, buffer and index in Python once the kernel returns -- never an abort. Loads under
an expression-level guard (`T.if_then_else`, `T.Select`) are not checked: they may be
legitimately out of range when the guard is false.
"""

from __future__ import annotations

import os
from typing import Any

from .bounds import index_range
from .expr import BinaryOp, BinOp, BufferLoad, Call, Cast, IntImm, Not, PrimExpr, Select, StringImm
from .expr import Var
from .function import PrimFunc
from .functor import Mutator, Visitor, simplify
from .stmt import AssertStmt, BufferStore, Evaluate, For, IfThenElse, SeqStmt

FAIL_OP = "tvmlite.bounds_fail"
CONFIG_KEY = "tir.instrument_bound_checkers"


def enabled() -> bool:
    """The PassContext config (TVM's spelling) or the environment switch asks for checks."""
    if os.environ.get("TVMLITE_BOUNDS_CHECK", "") not in ("", "0"):
        return True
    from ..transforms.pass_infra import PassContext

    return bool(PassContext.current().config.get(CONFIG_KEY, False))


class _Loads(Visitor):
    """The loads a statement evaluates unconditionally (not under if_then_else / Select)."""

    def __init__(self) -> None:
        self.found: list[BufferLoad] = []

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self.found.append(e)
        self.visit(e.indices)

    def visit_Select(self, e: Select) -> None:
        self.visit(e.condition)

    def visit_Call(self, e: Call) -> None:
        if e.op in ("tir.if_then_else", "if_then_else") and e.args:
            self.visit(e.args[0])
        else:
            self.generic_visit(e)


class _Instrument(Mutator):
    def __init__(self, name: str) -> None:
        self.name = name
        self.loops: dict[Var, tuple[int, int]] = {}

    def visit_For(self, s: For) -> Any:
        lo, n = simplify(s.min), simplify(s.extent)
        known = isinstance(lo, IntImm) and isinstance(n, IntImm) and n.value >= 1
        if known:
            self.loops[s.loop_var] = (lo.value, n.value)
        out = self.generic_visit(s)
        self.loops.pop(s.loop_var, None)
        return out

    def _checks(self, buf: Any, indices: tuple[PrimExpr, ...]) -> list[tuple[PrimExpr, str, Any]]:
        out = []
        for axis, (index, dim) in enumerate(zip(indices, buf.shape)):
            window, extent = index_range(index, self.loops), simplify(dim)
            if (window is not None and isinstance(extent, IntImm)
                    and 0 <= window[0] and window[1] < extent.value):
                continue  # proven in bounds: no check
            i64 = index if index.dtype == "int64" else Cast("int64", index)
            d64 = extent if extent.dtype == "int64" else Cast("int64", extent)
            cond = BinOp(BinaryOp.AND, BinOp(BinaryOp.GE, i64, IntImm("int64", 0)),
                         BinOp(BinaryOp.LT, i64, d64))
            where = f" (axis {axis})" if len(buf.shape) > 1 else ""
            out.append((cond, f"kernel {self.name!r}: index %lld of buffer {buf.name}{where} "
                              f"is out of bounds (extent {_text(dim)})", i64))
        return out

    def visit_BufferStore(self, s: BufferStore) -> Any:
        loads = _Loads()
        loads.visit(s.value)
        loads.visit(s.indices)
        checks = [c for ld in loads.found for c in self._checks(ld.buffer, ld.indices)]
        checks += self._checks(s.buffer, s.indices)
        stmt: Any = s
        for cond, message, index in reversed(checks):
            fail = Evaluate(Call("int32", FAIL_OP, (StringImm(message), index)))
            stmt = SeqStmt((IfThenElse(Not(cond), fail, None), AssertStmt(cond, message, stmt)))
        return stmt


def _text(e: PrimExpr) -> str:
    e = simplify(e)
    return str(e.value) if isinstance(e, IntImm) else getattr(e, "name", "?")


def instrument_bounds(func: PrimFunc, name: str) -> PrimFunc:
    """`func` (blocks lowered) with a run-time check before every unproven access."""
    return func.with_body(_Instrument(name).visit(func.body))
