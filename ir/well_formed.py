"""Well-formedness of relax functions (TVM's `relax.analysis.well_formed`).

Checked: each var is bound once and used only after its binding and within its scope
(DataflowVars only inside their dataflow block, If-branch vars only in their branch); dataflow
blocks hold no `If`; symbolic dims used in the body are defined by the parameters or a
`match_cast`; a `GlobalVarRef` names a function of the module, and `call_tir` a prim_func;
every binding carries struct info. Prim_funcs of the module go through `tir.verify`.
"""

from __future__ import annotations

import os

import dataclasses
from typing import Any

from ..tir import expr as tx
from ..tir.function import PrimFunc
from . import expr as rx
from .module import IRModule
from .op import CALL_TIR


class WellFormedError(ValueError):
    """The module breaks a rule above; the message lists every violation found."""


class _Checker:
    def __init__(self, mod: IRModule | None, name: str) -> None:
        self.mod, self.name = mod, name
        self.scopes: list[set[rx.Var]] = [set()]
        self.ever: set[rx.Var] = set()
        self.sym: set[tx.Var] = set()
        self.errors: list[str] = []
        self.in_dataflow = False

    def error(self, msg: str) -> None:
        self.errors.append(f"in function {self.name!r}: {msg}")

    def define(self, v: rx.Var) -> None:
        if v in self.ever:
            self.error(f"variable {v.name_hint!r} is bound twice")
        if isinstance(v, rx.DataflowVar) and not self.in_dataflow:
            self.error(f"dataflow variable {v.name_hint!r} is bound outside a dataflow block")
        if v.struct_info is None:
            self.error(f"variable {v.name_hint!r} has no struct info")
        self.ever.add(v)
        self.scopes[-1].add(v)

    def sinfo_defs(self, s: Any) -> None:
        """Symbolic dims appearing as plain vars in params / match_cast become defined."""
        for x in _walk(s):
            if isinstance(x, tx.Var):
                self.sym.add(x)

    def function(self, f: rx.Function) -> None:
        for p in f.params:
            self.define(p)
            self.sinfo_defs(p.struct_info)
        self.seq(f.body)

    def seq(self, s: rx.SeqExpr) -> None:
        self.scopes.append(set())
        for block in s.blocks:
            self.block(block)
        self.expr(s.body)
        self.scopes.pop()

    def block(self, block: rx.BindingBlock) -> None:
        dataflow = isinstance(block, rx.DataflowBlock)
        self.in_dataflow = dataflow
        if dataflow:
            self.scopes.append(set())
        for b in block.bindings:
            if dataflow and isinstance(b.value, rx.If):
                self.error("an If cannot be inside a dataflow block")
            self.expr(b.value)
            if isinstance(b, rx.MatchCast):
                self.sinfo_defs(b.struct_info)
            self.define(b.var)
        if dataflow:
            outs = {v for v in self.scopes.pop() if not isinstance(v, rx.DataflowVar)}
            self.scopes[-1].update(outs)
        self.in_dataflow = False

    def expr(self, e: Any) -> None:
        if isinstance(e, rx.Var):
            if not any(e in s for s in self.scopes):
                where = "outside its scope" if e in self.ever else "before it is bound"
                self.error(f"variable {e.name_hint!r} is used {where}")
            return
        if isinstance(e, rx.If):
            self.expr(e.cond)
            self.seq(e.true_branch)
            self.seq(e.false_branch)
            return
        if isinstance(e, rx.GlobalVarRef):
            self.global_ref(e)
            return
        if isinstance(e, rx.Call):
            self.call(e)
        elif isinstance(e, (rx.ShapeExpr, rx.PrimValue)):
            for v in _walk(e):
                if isinstance(v, tx.Var) and v not in self.sym:
                    self.error(f"symbolic variable {v.name!r} is not defined by a parameter "
                               "or a match_cast")
        for c in _expr_children(e):
            self.expr(c)

    def call(self, e: rx.Call) -> None:
        if isinstance(e.op, rx.Op) and e.op.name == CALL_TIR.name and self.mod is not None:
            callee = e.args[0]
            if isinstance(callee, rx.GlobalVarRef) and callee.gvar in self.mod.functions and \
                    not isinstance(self.mod.functions[callee.gvar], PrimFunc):
                self.error(f"call_tir calls {callee.gvar.name_hint!r}, which is not a prim_func")

    def global_ref(self, e: rx.GlobalVarRef) -> None:
        if self.mod is not None and e.gvar not in self.mod.functions:
            self.error(f"{e.gvar.name_hint!r} is not a function of the module")


def _expr_children(e: Any) -> list[Any]:
    if isinstance(e, rx.Call):
        return [e.op, *e.args]
    if isinstance(e, rx.Tuple):
        return list(e.fields)
    if isinstance(e, rx.TupleGetItem):
        return [e.tuple_value]
    return []


def _walk(x: Any) -> list[Any]:
    out: list[Any] = []
    stack = [x]
    while stack:
        y = stack.pop()
        out.append(y)
        if isinstance(y, (tuple, list)):
            stack.extend(y)
        elif dataclasses.is_dataclass(y) and not isinstance(y, (tx.Var, type)):
            stack.extend(getattr(y, f.name) for f in dataclasses.fields(y) if f.name != "span")
    return out


def well_formed(obj: Any, check_struct_info: bool = True) -> bool:
    """True when `obj` (an IRModule or a relax Function) is well formed (TVM's signature)."""
    return not check(obj)


def check(obj: Any) -> list[str]:
    """Every violation found, as messages (empty when well formed)."""
    from ..tir.verify import _prim_funcs, _verify

    mod = obj if isinstance(obj, IRModule) else None
    funcs = obj.items() if mod is not None else [(None, obj)]
    errors: list[str] = []
    for gv, f in funcs:
        if isinstance(f, rx.Function):
            c = _Checker(mod, gv.name_hint if gv is not None else "main")
            c.function(f)
            errors += c.errors
    if mod is not None:
        for name, pf in _prim_funcs(mod):
            errors += _verify(name, pf)
    elif isinstance(obj, PrimFunc):
        errors += _verify("main", obj)
    return errors


def assert_well_formed(obj: Any) -> None:
    errors = check(obj)
    if errors:
        raise WellFormedError("IR is not well formed:\n  " + "\n  ".join(errors))


def verify_if_enabled(obj: Any, after: str) -> None:
    """Check `obj` when TVMLITE_VERIFY is set (the test suite sets it): after parsing and
    after every pass, so a pass that breaks the IR fails where it broke it."""
    if os.environ.get("TVMLITE_VERIFY"):
        errors = check(obj)
        if errors:
            raise WellFormedError(f"IR is not well formed after {after}:\n  "
                                  + "\n  ".join(errors))
