"""More questions asked of relax functions (TVM's `relax.analysis`): who uses each variable
(`udchain`, `used_vars`), which symbolic dims a function defines and uses, whether it makes
impure calls, which module functions recurse, and which bindings depend on weights alone
(`computable_at_compile_time`).
"""

from __future__ import annotations

from typing import Any, Callable

from ..tir.expr import PrimExpr
from ..tir.expr import Var as TirVar
from ..tir.function import free_vars as prim_free_vars
from . import expr as rx
from . import struct_info as si
from .analysis import _bindings, _nodes
from .functor import ExprVisitor, var_use_counts
from .module import GlobalVar, IRModule
from .op import op_attr
from .type_analysis import definable_tir_vars_in_type, tir_vars_in_type


def used_vars(expr: rx.Expr) -> list[rx.Var]:
    """The relax variables `expr` reads, each once, in order of first use."""
    return list(var_use_counts(expr))


def udchain(block: rx.BindingBlock) -> dict[rx.Var, list[rx.Var]]:
    """Each variable the block reads or binds -> the variables of the block's bindings that
    read it (a binding of the block's last value reads nothing further)."""
    users: dict[rx.Var, list[rx.Var]] = {}
    for b in block.bindings:
        for v in var_use_counts(b.value):
            users.setdefault(v, [])
            if b.var not in users[v]:
                users[v].append(b.var)
        users.setdefault(b.var, [])
    return users


def post_order_visit(expr: Any, fvisit: Callable[[Any], Any]) -> None:
    """Call `fvisit` on every expression under `expr`, children before their parent."""

    class _Post(ExprVisitor):
        def visit(self, node: Any) -> None:
            super().visit(node)
            fvisit(node)

    _Post().visit(expr)


# -- symbolic variables ----------------------------------------------------------------------


def _prim_exprs(node: Any) -> list[PrimExpr]:
    """The TIR expressions a relax expression holds (shapes, prim values, struct info)."""
    found: list[PrimExpr] = []
    for n in _nodes(node):
        if isinstance(n, rx.ShapeExpr):
            found.extend(n.values)
        elif isinstance(n, rx.PrimValue):
            found.append(n.value)
        elif isinstance(n, rx.Call):
            found.extend(d for s in n.sinfo_args for d in _sinfo_dims(s))
        elif isinstance(n, (rx.VarBinding, rx.MatchCast)) and n.var.struct_info is not None:
            found.extend(_sinfo_dims(n.var.struct_info))
        elif isinstance(n, rx.Function):
            for p in n.params:
                found.extend(_sinfo_dims(p.struct_info))
            if n.ret_struct_info is not None:
                found.extend(_sinfo_dims(n.ret_struct_info))
    return found


def _sinfo_dims(sinfo: Any) -> list[PrimExpr]:
    return list(tir_vars_in_type(sinfo)) if isinstance(sinfo, si.StructInfo) else []


def defined_symbolic_vars(expr: rx.Expr) -> list[TirVar]:
    """The symbolic dims `expr` defines: those its functions' parameters and its match_casts
    make known."""
    found: list[TirVar] = []
    for n in _nodes(expr):
        sinfos = [p.struct_info for p in n.params] if isinstance(n, rx.Function) else \
            [n.struct_info] if isinstance(n, rx.MatchCast) else []
        for s in sinfos:
            if s is not None:
                found.extend(v for v in definable_tir_vars_in_type(s) if v not in found)
    return found


def free_symbolic_vars(expr: rx.Expr) -> list[TirVar]:
    """The symbolic dims `expr` uses without defining them."""
    defined = set(defined_symbolic_vars(expr))
    found: list[TirVar] = []
    for e in _prim_exprs(expr):
        found.extend(v for v in prim_free_vars(e) if v not in defined and v not in found)
    return found


# -- purity ----------------------------------------------------------------------------------


def _impure(call: rx.Call, own_name: Any) -> bool:
    callee = call.op
    if isinstance(callee, rx.ExternFunc):
        return True  # R.call_packed (call_pure_packed wraps it as an argument instead)
    if isinstance(callee, rx.Op) and op_attr(callee.name, "impure"):
        return True  # writes memory (R.vm.call_tir_dyn) or frees it (R.memory.kill_*)
    if isinstance(callee, rx.Var) and own_name is not None and callee is own_name:
        return False  # a recursive call's purity is the function's own, not yet known
    if isinstance(callee, rx.GlobalVarRef) and own_name is not None and \
            callee.gvar.name_hint == getattr(own_name, "name_hint", own_name):
        return False
    sinfo = callee.struct_info
    return isinstance(sinfo, si.FuncStructInfo) and not sinfo.purity


def contains_impure_call(expr: rx.Expr, own_name: Any = None) -> bool:
    """Whether `expr` makes a call with side effects (nested functions are not entered: their
    calls happen only when they are called)."""
    found = False

    class _Find(ExprVisitor):
        def visit_Function(self, f: rx.Function) -> None:
            if f is expr:
                self.generic_visit(f)

        def visit_Call(self, call: rx.Call) -> None:
            nonlocal found
            found = found or _impure(call, own_name)
            self.generic_visit(call)

    _Find().visit(expr)
    return found


# -- recursion -------------------------------------------------------------------------------


def _callees(func: Any) -> list[str]:
    if not isinstance(func, rx.Function):
        return []
    return list(dict.fromkeys(n.gvar.name_hint for n in _nodes(func)
                              if isinstance(n, rx.GlobalVarRef)))


def detect_recursion(mod: IRModule) -> list[list[GlobalVar]]:
    """The groups of relax functions that call one another in a cycle (a function calling
    itself is a group of one); strongly connected components by Tarjan's algorithm."""
    graph = {gv.name_hint: [c for c in _callees(f) if c in mod] for gv, f in mod.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for callee in graph[name]:
            if callee not in index:
                visit(callee)
                low[name] = min(low[name], low[callee])
            elif callee in stack:
                low[name] = min(low[name], index[callee])
        if low[name] == index[name]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == name:
                    break
            if len(group) > 1 or name in graph[name]:
                groups.append(group)

    for name in graph:
        if name not in index:
            visit(name)
    return [[mod.get_global_var(n) for n in g] for g in groups]


# -- compile-time values ---------------------------------------------------------------------


def computable_at_compile_time(func: rx.Function) -> list[rx.Var]:
    """The parameters after the first `num_input` (weights) and every binding computed from
    them alone, symbolic dims included: what LiftTransformParams may move out."""
    num_input = func.attr_dict.get("num_input")
    if num_input is None:
        return []
    known: list[rx.Var] = list(func.params[int(num_input):])
    tir_known: set[TirVar] = set()
    for p in known:
        tir_known.update(definable_tir_vars_in_type(p.struct_info or si.ObjectStructInfo()))
    for b in _bindings(func.body):
        uses = var_use_counts(b.value)
        dims = [v for e in _prim_exprs(b.value) for v in prim_free_vars(e)]
        if all(v in known for v in uses) and all(v in tir_known for v in dims):
            known.append(b.var)
            if isinstance(b, rx.MatchCast):
                tir_known.update(definable_tir_vars_in_type(b.struct_info))
    return known
