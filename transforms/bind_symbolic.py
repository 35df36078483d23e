"""BindSymbolicVars: give symbolic dims of relax functions fixed values (or expressions).

`BindSymbolicVars({"n": 16})` replaces the dim `n` in a function's signature, bindings and
struct info by 16; keys may be names or the `tir.Var`s themselves. The substitution walks
every IR dataclass of the function, making one new relax variable per variable whose struct
info changed (so uses stay consistent) and simplifying the dims it rewrote.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Any

from ..ir import expr as rx
from ..ir.module import IRModule
from ..ir.usage_analysis import defined_symbolic_vars, free_symbolic_vars
from ..tir import expr as tx
from ..tir.attrs import Attrs
from ..tir.functor import simplify
from .pass_infra import Pass, PassContext


class _Substitute:
    def __init__(self, mapping: dict[tx.Var, tx.PrimExpr], simplify_changed: bool = True
                 ) -> None:
        self.mapping = mapping
        self.simplify_changed = simplify_changed  # off for a renaming: keep each dim as written
        self.memo: dict[int, Any] = {}

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, tx.Var):
            return self.mapping.get(obj, obj)
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        out = self._rebuild(obj)
        if self.simplify_changed and isinstance(obj, tx.PrimExpr) and out is not obj:
            out = _constant_last(simplify(out))  # `m + n`, m = 3: `n + 3`, as TVM writes it
        self.memo[key] = out
        return out

    def _rebuild(self, obj: Any) -> Any:
        if isinstance(obj, Attrs):
            # NOTE: an operator's attribute that becomes constant is a plain int, as the
            # parser writes constant attributes (`end=[N // 4]`, N = 32: `end=[8]`)
            items = tuple(_constant_as_int(self(x), x) for x in obj)
            return obj if all(a is b for a, b in zip(items, obj)) else Attrs(items)
        if isinstance(obj, tuple):
            items = tuple(self(x) for x in obj)
            if all(a is b for a, b in zip(items, obj)):
                return obj
            return Attrs(items) if isinstance(obj, Attrs) else items
        if not is_dataclass(obj) or isinstance(obj, type):
            return obj
        changes = {}
        for f in fields(obj):
            if not f.init or f.name == "span":
                continue
            old = getattr(obj, f.name)
            new = self(old)
            if new is not old:
                changes[f.name] = new
        return replace(obj, **changes) if changes else obj


def _constant_as_int(new: Any, old: Any) -> Any:
    if new is old:
        return new
    if isinstance(new, tx.IntImm) and new.dtype.startswith("int"):
        return new.value
    if isinstance(new, tuple) and not isinstance(new, Attrs):
        return tuple(_constant_as_int(a, b) for a, b in zip(new, old))
    return new


def _constant_last(e: tx.PrimExpr) -> tx.PrimExpr:
    if isinstance(e, tx.BinOp) and e.op in (tx.BinaryOp.ADD, tx.BinaryOp.MUL) and \
            isinstance(e.a, tx.IntImm) and not isinstance(e.b, tx.IntImm):
        return replace(e, a=e.b, b=e.a)
    return e


class BindSymbolicVarsError(ValueError, RuntimeError):
    """A name to bind that no function has, or that names several variables (TVM raises a
    RuntimeError; ours is also a ValueError)."""


def _dims_of(func: rx.Function) -> dict[str, list[tx.Var]]:
    found: dict[str, list[tx.Var]] = {}
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, tx.Var):
            if obj not in found.setdefault(obj.name, []):
                found[obj.name].append(obj)
        elif isinstance(obj, tuple):
            for x in obj:
                walk(x)
        elif is_dataclass(obj) and not isinstance(obj, type):
            for f in fields(obj):
                walk(getattr(obj, f.name))
    walk(func)
    return found


def _resolve(func: rx.Function, binding_map: dict[Any, Any]) -> dict[tx.Var, tx.PrimExpr]:
    dims = _dims_of(func)
    out: dict[tx.Var, tx.PrimExpr] = {}
    for key, value in binding_map.items():
        targets = dims.get(key, []) if isinstance(key, str) else [key]
        if isinstance(key, str) and len(targets) > 1:
            raise BindSymbolicVarsError(
                f"BindSymbolicVars: the name {key!r} names {len(targets)} different symbolic "
                f"variables; pass the tir.Var itself")
        for var in targets:
            out[var] = tx.const(value, var.dtype) if isinstance(value, int) else value
    return out


def renew_symbolic_vars(func: rx.Function) -> rx.Function:
    """`func` with a new tir.Var for every symbolic dim it defines (TVM's
    SymbolicVarRenewMutator): a function made from part of another shares none of its dims."""
    mapping = {v: tx.Var(v.name, v.dtype) for v in defined_symbolic_vars(func)}
    return _Substitute(mapping, simplify_changed=False)(func) if mapping else func


def bind_symbolic_vars(func: rx.Function, binding_map: dict[Any, Any]) -> rx.Function:
    """`func` with the symbolic vars in `binding_map` (names or tir.Vars; others ignored)
    replaced by their values."""
    mapping = _resolve(func, binding_map)
    return _Substitute(mapping)(func) if mapping else func


def checked_bind_symbolic_vars(func: rx.Function, binding_map: dict[Any, Any]
                               ) -> rx.Function:
    """`Function.bind_symbolic_vars`: every key must name a symbolic var of `func`, once, and
    what replaces them must leave no symbolic var undefined."""
    dims = _dims_of(func)
    for key in binding_map:
        if isinstance(key, str) and key not in dims:
            raise BindSymbolicVarsError(f"bind_symbolic_vars: the function has no symbolic "
                                        f"variable named {key!r} (it has {sorted(dims)})")
        if isinstance(key, tx.Var) and key not in dims.get(key.name, []):
            raise BindSymbolicVarsError(f"bind_symbolic_vars: {key.name} is not a symbolic "
                                        f"variable of the function (a tir.Var of that name "
                                        f"made elsewhere is a different variable)")
        if isinstance(key, tx.Var) and key.name in binding_map:
            raise BindSymbolicVarsError(f"bind_symbolic_vars: {key.name} is given twice, as a "
                                        f"name and as a tir.Var")
    out = bind_symbolic_vars(func, binding_map)
    undefined = free_symbolic_vars(out)
    if undefined:
        raise BindSymbolicVarsError(f"bind_symbolic_vars: after binding, "
                                    f"{', '.join(v.name for v in undefined)} would be used but "
                                    f"not defined by the function's parameters")
    return out


def BindSymbolicVars(binding_map: dict[Any, Any], func_name: str | None = None  # noqa: N802
                     ) -> Pass:
    """Replace symbolic dims (by name or tir.Var) with the given values in relax functions."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        names = [k for k in binding_map if isinstance(k, str)]
        funcs = {gv: f for gv, f in mod.items() if isinstance(f, rx.Function) and
                 (func_name is None or gv.name_hint == func_name)}
        if func_name is not None and not funcs:
            raise BindSymbolicVarsError(
                f"BindSymbolicVars: the module has no relax function {func_name!r}")
        known = set().union(*(_dims_of(f) for f in funcs.values())) if funcs else set()
        missing = [n for n in names if n not in known]
        if missing:
            raise BindSymbolicVarsError(
                f"BindSymbolicVars: no symbolic variable named {missing} in "
                f"{func_name or 'the module'} (it has {sorted(known)})")
        return mod.map_functions(lambda gv, f: bind_symbolic_vars(f, binding_map)
                                 if gv in funcs else f)
    return Pass(run, "BindSymbolicVars")
