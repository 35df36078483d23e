"""Questions asked of relax expressions (TVM's `relax.analysis`): which variables a function
binds, which it uses freely, what each variable is bound to."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from . import expr as rx
from .module import GlobalVar


def _nodes(node: Any) -> Iterator[Any]:
    """Every IR node under `node`, parents before children, fields in declaration order
    (so bindings come out in program order)."""
    yield node
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from _nodes(item)
    elif isinstance(node, rx.Expr) or isinstance(node, (rx.VarBinding, rx.MatchCast,
                                                        rx.BindingBlock)):
        if dataclasses.is_dataclass(node) and not isinstance(node, rx.Var):
            for f in dataclasses.fields(node):
                if f.name not in ("span", "struct_info", "ret_struct_info", "attrs"):
                    yield from _nodes(getattr(node, f.name))


def _bindings(node: Any) -> Iterator[rx.VarBinding | rx.MatchCast]:
    return (n for n in _nodes(node) if isinstance(n, (rx.VarBinding, rx.MatchCast)))


def get_var2val(func: rx.Expr) -> dict[rx.Var, rx.Expr]:
    """Each variable bound by `v = value` in `func` (nested blocks included) -> its value."""
    return {b.var: b.value for b in _bindings(func) if isinstance(b, rx.VarBinding)}


def name_to_binding(func: rx.Expr) -> dict[str, list[rx.VarBinding | rx.MatchCast]]:
    """Each bound variable's name -> the bindings of variables of that name."""
    found: dict[str, list[rx.VarBinding | rx.MatchCast]] = {}
    for b in _bindings(func):
        found.setdefault(b.var.name_hint, []).append(b)
    return found


def bound_vars(expr: rx.Expr) -> list[rx.Var]:
    """The variables `expr` defines: function parameters and binding variables, in order."""
    out: list[rx.Var] = []
    for n in _nodes(expr):
        if isinstance(n, rx.Function):
            out.extend(n.params)
        elif isinstance(n, (rx.VarBinding, rx.MatchCast)):
            out.append(n.var)
    return list(dict.fromkeys(out))


def all_vars(expr: rx.Expr) -> list[rx.Var]:
    """Every variable `expr` defines or uses, each once, in order of first appearance."""
    defined = bound_vars(expr)
    used = [n for n in _nodes(expr) if isinstance(n, rx.Var)]
    return list(dict.fromkeys(defined + used))


def free_vars(expr: rx.Expr) -> list[rx.Var]:
    """The variables `expr` uses without defining them."""
    bound = set(bound_vars(expr))
    return [v for v in all_vars(expr) if v not in bound]


def all_global_vars(expr: rx.Expr) -> list[GlobalVar]:
    """The module functions `expr` refers to (call targets and `call_tir` arguments)."""
    found = [n.gvar for n in _nodes(expr) if isinstance(n, rx.GlobalVarRef)]
    found += [n for n in _nodes(expr) if isinstance(n, GlobalVar)]
    return list(dict.fromkeys(found))
