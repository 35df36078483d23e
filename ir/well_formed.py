"""Well-formedness of relax functions (TVM's `relax.analysis.well_formed`).

Checked: each var is bound once and used only after its binding and within its scope
(DataflowVars only inside their dataflow block, If-branch vars only in their branch); dataflow
blocks hold no `If`; symbolic dims used in the body are defined by the parameters or a
`match_cast`; a `GlobalVarRef` names a function of the module, and `call_tir` a prim_func;
every binding carries struct info. Prim_funcs of the module go through `tir.verify`.
The public check (`well_formed`) adds TVM's stricter rules: A-normal form, purity (a pure
function makes no impure call unless `relax.force_pure`; no dataflow block does), call_tir
signatures against their prim_funcs, and each symbolic var belonging to one function.
"""

from __future__ import annotations

import os

import dataclasses
from typing import Any

from ..tir import expr as tx
from ..tir.function import PrimFunc
from . import expr as rx
from . import struct_info as si
from .call_tir_check import call_tir_mismatch, tensor_mismatch
from .module import GlobalVar, IRModule
from .op import CALL_TIR, CALL_TIR_INPLACE
from .op_normalize import normalize_op_call


class WellFormedError(ValueError):
    """The module breaks a rule above; the message lists every violation found."""


class _Checker:
    def __init__(self, mod: IRModule | None, name: str, strict: bool = False) -> None:
        self.mod, self.name, self.strict = mod, name, strict
        self.scopes: list[set[rx.Var]] = [set()]
        self.ever: set[rx.Var] = set()
        self.sym: set[tx.Var] = set()
        self.errors: list[str] = []
        self.in_dataflow = False
        self.values: dict[rx.Var, Any] = {}

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
        if self.strict and not _is_leaf(f.body.body):
            self.error("the function's result must be a variable, constant or tuple of them "
                       "(bind the expression first: A-normal form)")
        if self.strict:
            self.undefined_dims(f.ret_struct_info, "the function's result")
            self.purity(f)

    def purity(self, f: rx.Function) -> None:
        forced = bool(getattr(f.attr_dict.get("relax.force_pure"), "value",
                              f.attr_dict.get("relax.force_pure")))
        if forced and not f.is_pure:
            self.error("relax.force_pure is set on a function not annotated as pure: the two "
                       "go together")
        impure = _first_impure_call(f) if f.is_pure and not forced else None
        if impure is not None:
            self.error(f"the function is annotated as pure but contains an impure call: "
                       f"{_show(impure)}. Set relax.force_pure or use a pure variant "
                       "(call_pure_packed) to override this judgment")

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
            if self.strict and dataflow and isinstance(b.value, rx.Call) and \
                    _impure(b.value, None):
                self.error(f"an impure call cannot be inside a dataflow block: "
                           f"{_show(b.value)}")
            if self.strict and isinstance(b.value, rx.SeqExpr):
                self.error(f"{b.var.name_hint!r} is bound to a sequence; sequences are only "
                           "function bodies and If branches")
            self.expr(b.value)
            self.values[b.var] = b.value
            if isinstance(b, rx.MatchCast):
                self.sinfo_defs(b.struct_info)
            if self.strict:
                self.undefined_dims(b.var.struct_info, b.var.name_hint)
                if not isinstance(b, rx.MatchCast):
                    self.annotation(b)
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
            if self.strict and not isinstance(e.cond, _LEAVES):
                self.error("an If condition must be a variable or constant (A-normal form)")
            self.expr(e.cond)
            for branch in (e.true_branch, e.false_branch):
                if isinstance(branch, rx.SeqExpr):
                    self.seq(branch)
                else:
                    self.error("the branches of an If must be sequences (SeqExpr)")
                    self.expr(branch)
            return
        if isinstance(e, rx.GlobalVarRef):
            self.global_ref(e)
            return
        if isinstance(e, rx.Call):
            self.call(e)
            self.leaves(e.args, "call arguments")
        elif isinstance(e, rx.Tuple):
            self.leaves(e.fields, "tuple fields")
        elif self.strict and isinstance(e, rx.TupleGetItem) and \
                not _is_leaf(e.tuple_value):
            self.error("a tuple item must be taken from a variable (A-normal form)")
        elif isinstance(e, (rx.ShapeExpr, rx.PrimValue)):
            for v in _walk(e):
                if isinstance(v, tx.Var) and v not in self.sym:
                    self.error(f"symbolic variable {v.name!r} is not defined by a parameter "
                               "or a match_cast")
        for c in _expr_children(e):
            self.expr(c)

    def annotation(self, b: rx.VarBinding) -> None:
        """A var's struct info may say less than its value's, never something else."""
        from .type_analysis import BaseCheckResult, type_base_check

        have, value = b.var.struct_info, getattr(b.value, "struct_info", None)
        if have is not None and value is not None and \
                type_base_check(have, value) == BaseCheckResult.FAIL_L0:
            self.error(f"{b.var.name_hint!r} is annotated {have} but its value is {value}")

    def leaves(self, items: Any, what: str) -> None:
        if self.strict and not all(_is_leaf(a) for a in items):
            self.error(f"{what} must be variables, constants or tuples of them, not nested "
                       "expressions (A-normal form)")

    def undefined_dims(self, sinfo: Any, name: str) -> None:
        for v in _free_dims(sinfo):
            if v not in self.sym:
                self.error(f"the struct info of {name!r} uses the symbolic variable {v.name!r}, "
                           "which no parameter or match_cast defines")

    def lookup_binding(self, var: rx.Var) -> Any:
        """What `var` is bound to (operator normalization rules ask)."""
        return self.values.get(var)

    def call(self, e: rx.Call) -> None:
        if self.strict and isinstance(e.op, rx.Op) and \
                normalize_op_call(e, self) is not e:
            self.error(f"{_show(e)} is not in the normal form its operator's FNormalize gives")
        if isinstance(e.op, rx.Op) and e.op.name == CALL_TIR.name and self.mod is not None \
                and e.args and isinstance(e.args[0], GlobalVar) and \
                e.args[0] not in self.mod.functions:
            self.error(f"call_tir calls {e.args[0].name_hint!r}, which is not in the module")
        if isinstance(e.op, rx.Op) and e.op.name == CALL_TIR.name and self.mod is not None:
            callee = e.args[0]
            if isinstance(callee, rx.GlobalVarRef) and callee.gvar in self.mod.functions and \
                    not isinstance(self.mod.functions[callee.gvar], PrimFunc):
                self.error(f"call_tir calls {callee.gvar.name_hint!r}, which is not a prim_func")
            elif self.strict and isinstance(callee, rx.GlobalVarRef) and \
                    callee.gvar in self.mod.functions:
                self.call_tir_fit(e, callee.gvar.name_hint, self.mod.functions[callee.gvar])
        if self.strict and isinstance(e.op, rx.Op) and e.op.name == CALL_TIR_INPLACE.name and \
                self.mod is not None and isinstance(e.args[0], rx.GlobalVarRef) and \
                isinstance(self.mod.functions.get(e.args[0].gvar), PrimFunc):
            self.call_tir_fit(e, e.args[0].gvar.name_hint, self.mod.functions[e.args[0].gvar],
                              tuple(e.attr("inplace_indices", ())))

    def call_tir_fit(self, e: rx.Call, name: str, f: PrimFunc,
                     inplace: tuple[int, ...] = ()) -> None:
        """The call fits `f`; an in-place output (index >= 0) is its argument's buffer."""
        args = e.args[1].fields if isinstance(e.args[1], rx.Tuple) else (e.args[1],)
        out = e.sinfo_args[0] if e.sinfo_args else e.struct_info
        outs = out.fields if isinstance(out, si.TupleStructInfo) else (out,)
        tir_vars = e.args[2] if len(e.args) > 2 else None
        n_vars = len(tir_vars.values) if isinstance(tir_vars, rx.ShapeExpr) else 0
        allocated = tuple(o for k, o in enumerate(outs) if k >= len(inplace) or inplace[k] < 0)
        bad = call_tir_mismatch(name, f, tuple(args), allocated, n_vars)
        if bad is not None:
            self.error(bad.message)
        for o, i in zip(outs, inplace):
            buf = f.buffer_of(f.params[i]) if 0 <= i < len(f.params) else None
            msg = tensor_mismatch(o, buf, {}) if buf is not None else None
            if msg:
                self.error(f"in-place output of call_tir_inplace to {name!r} does not fit "
                           f"parameter {buf.name!r}: {msg}")

    def global_ref(self, e: rx.GlobalVarRef) -> None:
        if self.mod is not None and e.gvar not in self.mod.functions:
            self.error(f"{e.gvar.name_hint!r} is not a function of the module")


_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm, rx.Op,
           rx.GlobalVarRef, rx.ExternFunc, rx.Function, GlobalVar)


def _is_leaf(e: Any) -> bool:
    if isinstance(e, rx.Tuple):
        return all(_is_leaf(f) for f in e.fields)
    return isinstance(e, _LEAVES)


def _impure(call: rx.Call, own_name: Any) -> bool:
    from .usage_analysis import _impure as impure  # NOTE: usage_analysis imports this module

    return impure(call, own_name)


def _first_impure_call(f: rx.Function) -> rx.Call | None:
    """The first impure call of `f`'s own body (nested functions run only when called)."""
    from .usage_analysis import post_order_visit

    found: list[rx.Call] = []

    def visit(e: Any) -> None:
        if isinstance(e, rx.Call) and not found and _impure(e, None):
            found.append(e)

    for block in f.body.blocks:
        for b in block.bindings:
            if not isinstance(b.value, rx.Function):
                post_order_visit(b.value, visit)
    return found[0] if found else None


# builtins that R.* operators become when built, named as the user wrote them
_BUILTIN_OPS = {"relax.run.print": "R.print", "relax.run.assert_op": "R.assert_op"}


def _show(call: rx.Call) -> str:
    try:
        text = call.script().strip().splitlines()[-1].strip()
    except Exception:  # noqa: BLE001 (a message must not fail for want of a printer)
        text = repr(call)[:200]
    symbol = getattr(call.op, "global_symbol", None)
    return f"{_BUILTIN_OPS[symbol]} ({text})" if symbol in _BUILTIN_OPS else text


def _expr_children(e: Any) -> list[Any]:
    if isinstance(e, rx.Call):
        return [e.op, *e.args]
    if isinstance(e, rx.Tuple):
        return list(e.fields)
    if isinstance(e, rx.TupleGetItem):
        return [e.tuple_value]
    return []


def _free_dims(sinfo: Any) -> list[tx.Var]:
    """The symbolic variables struct info uses that it does not define itself: a function
    signature (`R.Callable([R.Tensor((m, n))], ...)`) defines the dims of its parameters."""
    from .type_analysis import definable_tir_vars_in_type

    if isinstance(sinfo, si.FuncStructInfo) and sinfo.params is not None:
        own = {v for p in sinfo.params for v in definable_tir_vars_in_type(p)}
        inner = [v for part in (*sinfo.params, sinfo.ret) for v in _free_dims(part)]
        return [v for v in inner if v not in own]
    if isinstance(sinfo, si.TupleStructInfo):
        return [v for f in sinfo.fields for v in _free_dims(f)]
    return [v for v in _walk(sinfo) if isinstance(v, tx.Var)]


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


def well_formed(obj: Any, check_ty: bool = True, check_struct_info: bool | None = None
                ) -> bool:
    """True when `obj` (an IRModule or a relax Function) is well formed as TVM defines it:
    the scoping rules above, A-normal form (call arguments, tuple fields, If conditions and
    function results are variables or constants; struct info uses defined dims only), purity
    (a pure function makes no impure call unless forced; no dataflow block does) and call_tir
    signatures. Otherwise raises WellFormedError (a ValueError, as TVM 0.27 raises) listing
    what is wrong; `relax.analysis.check_well_formed` answers False instead."""
    errors = check(obj, strict=True)
    if errors:
        raise WellFormedError("IR is not well formed:\n  " + "\n  ".join(errors))
    return True


def check(obj: Any, strict: bool = False) -> list[str]:
    """Every violation found, as messages (empty when well formed). The verification hook
    checks scoping only (`strict=False`): passes may leave nested calls for Normalize."""
    from ..tir.verify import _prim_funcs, _verify

    mod = obj if isinstance(obj, IRModule) else None
    funcs = obj.items() if mod is not None else [(None, obj)]
    errors: list[str] = []
    owner: dict[tx.Var, str] = {}  # symbolic var -> the function that defines it
    for gv, f in funcs:
        if isinstance(f, rx.Function):
            name = gv.name_hint if gv is not None else "main"
            c = _Checker(mod, name, strict)
            c.function(f)
            errors += c.errors
            for v in c.sym if strict else ():
                if owner.setdefault(v, name) != name:
                    errors.append(f"the symbolic variable {v.name!r} is used by functions "
                                  f"{owner[v]!r} and {name!r}: each function has its own")
        symbol = getattr(f, "attr_dict", {}).get("global_symbol")
        if strict and gv is not None and symbol is not None and symbol != gv.name_hint:
            errors.append(f"function {gv.name_hint!r} is exported as {symbol!r}: a public "
                          "function's global_symbol must be its name (NormalizeGlobalVar)")
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
