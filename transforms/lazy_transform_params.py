"""LazyTransformParams (TVM's pass, the packed-function form of LazyGetInput/LazySetOutput):
a weight-transforming function fetches each weight with the packed function `fget_item(index)`
where it is first read, hands each result to `fset_item(index, value)` after its last use,
and frees each fetched weight (`R.vm.kill_object`) after its last use.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator, var_use_counts
from ..ir.module import IRModule
from ..ir.ops.memory import vm_kill_object
from ..tir import expr as tx
from .pass_infra import Pass, PassContext

_ANY = si.ObjectStructInfo()


def _prim(i: int) -> rx.PrimValue:
    value = tx.const(i, "int64")
    return rx.PrimValue(value, si.PrimStructInfo("int64", value))


def _packed(name: str, args: tuple[rx.Expr, ...]) -> rx.Call:
    return rx.Call(rx.ExternFunc(name), args, sinfo_args=(_ANY,), struct_info=_ANY)


class _ItemReads(ExprMutator):
    """`params[i]` of a tuple parameter becomes the variable of item i."""

    def __init__(self, items: dict[rx.Var, tuple[rx.Var, ...]]) -> None:
        self.items = items

    def visit_TupleGetItem(self, e: rx.TupleGetItem) -> rx.Expr:  # noqa: N802
        leaves = self.items.get(e.tuple_value)  # type: ignore[call-overload]
        if leaves is not None:
            return leaves[e.index]
        return super().visit_TupleGetItem(e)

    def visit_Var(self, v: rx.Var) -> rx.Expr:  # noqa: N802
        leaves = self.items.get(v)  # the whole tuple read: rebuild it from its items
        return rx.Tuple(leaves, v.struct_info) if leaves is not None else v


def _split_tuple_params(func: rx.Function) -> tuple[rx.Function, set[rx.Var]]:
    """One parameter per item of each tuple parameter; also returns the item parameters."""
    items: dict[rx.Var, tuple[rx.Var, ...]] = {}
    params: list[rx.Var] = []
    for p in func.params:
        if isinstance(p.struct_info, si.TupleStructInfo):
            items[p] = tuple(rx.Var(f"{p.name_hint}_{i}", s)
                             for i, s in enumerate(p.struct_info.fields))
            params += items[p]
        else:
            params.append(p)
    if not items:
        return func, set()
    leaves = {v for vs in items.values() for v in vs}
    return replace(func, params=tuple(params), body=_ItemReads(items).visit(func.body)), leaves


def _stays_a_param(p: rx.Var) -> bool:
    """Shapes and scalars are not weights: they stay parameters (they define symbolic vars)."""
    return isinstance(p.struct_info, (si.ShapeStructInfo, si.PrimStructInfo))


def _fetch(bindings: list[Any], weights: list[rx.Var], fget: str,
           extra: tuple[rx.Expr, ...]) -> tuple[list[Any], dict[rx.Var, rx.Var]]:
    """Insert `fget(index)` + match_cast before each weight's first read; reads use the cast
    variable. Returns the new bindings and each weight's cast variable."""
    index = {p: i for i, p in enumerate(weights)}
    mapping: dict[rx.Var, rx.Var] = {}
    out: list[Any] = []
    for b in bindings:
        for v in var_use_counts(b.value):
            if v in index and v not in mapping:
                fetched = rx.Var(v.name_hint, _ANY)
                mapping[v] = rx.Var(v.name_hint, v.struct_info, v.span)
                out += [rx.VarBinding(fetched, _packed(fget, extra + (_prim(index[v]),))),
                        rx.MatchCast(mapping[v], fetched, v.struct_info)]
        out.append(_substitute(b, mapping))
    return out, mapping


def _holders(bindings: list[Any], cast: set[rx.Var]) -> set[rx.Var]:
    """The variables that held tuple items (`lv = params[i]`, now `lv = cast`): they are freed
    after their last read. (TVM frees only these, not weights passed one per parameter.)"""
    return {b.var for b in bindings if isinstance(b, rx.VarBinding) and b.value in cast}


def _substitute(b: Any, mapping: dict[rx.Var, rx.Var]) -> Any:
    from ..ir.functor import substitute_vars

    return replace(b, value=substitute_vars(b.value, mapping)) if mapping else b


def _positions(bindings: list[Any], skip: int | None) -> tuple[dict[rx.Var, int],
                                                               dict[rx.Var, int]]:
    """Where each variable is defined, and where it is last read (binding `skip` aside)."""
    defined: dict[rx.Var, int] = {}
    last: dict[rx.Var, int] = {}
    for i, b in enumerate(bindings):
        defined[b.var] = i
        if i != skip:
            for v in var_use_counts(b.value):
                last[v] = i
    return defined, last


def _output_tuple(bindings: list[Any], ret: rx.Expr) -> int | None:
    """The binding that builds the returned tuple: TVM hands outputs over only then."""
    for i, b in enumerate(bindings):
        if b.var is ret and isinstance(b, rx.VarBinding) and isinstance(b.value, rx.Tuple):
            return i
    return None


def _hand_over(bindings: list[Any], ret: rx.Expr, fetched: set[rx.Var], fset: str,
               extra: tuple[rx.Expr, ...]) -> tuple[list[Any], rx.Expr]:
    """Where a variable's live range ends (its last read, or its binding if never read), it
    is handed to `fset(index, value)` if it is an output and freed (`R.vm.kill_object`) if it
    is a fetched weight; the variables a binding reads end first, in reading order, then the
    one it binds. The returned tuple becomes `R.tuple()`; constant items are handed over
    where it was built."""
    out_pos = _output_tuple(bindings, ret)
    if out_pos is None:
        return bindings, ret
    fields = bindings[out_pos].value.fields
    defined, last = _positions(bindings, out_pos)
    items: dict[rx.Expr, list[int]] = {}
    for k, f in enumerate(fields):
        items.setdefault(f, []).append(k)

    def ends_at(v: rx.Var) -> int:
        return max(last.get(v, -1), defined.get(v, -1))

    def release(v: rx.Var) -> list[Any]:
        sets = [_set(fset, extra, k, v) for k in items.get(v, [])]
        return sets + ([_kill(v)] if v in fetched else [])

    out = [b for v in items if isinstance(v, rx.Var) and ends_at(v) == -1 for b in release(v)]
    for i, b in enumerate(bindings):
        if i == out_pos:
            b = rx.VarBinding(rx.Var(b.var.name_hint, _EMPTY), _empty())
            ret = _empty()  # a void value is returned in line, as TVM normalizes its uses
            out += [b] + [_set(fset, extra, k, f) for k, f in enumerate(fields)
                          if not isinstance(f, rx.Var)]
            continue
        out.append(b)
        for v in [*var_use_counts(b.value), b.var]:
            if ends_at(v) == i:
                out += release(v)
    return out, ret


_EMPTY = si.TupleStructInfo(())


def _empty() -> rx.Tuple:
    return rx.Tuple((), _EMPTY)


def _kill(w: rx.Var) -> rx.VarBinding:
    return rx.VarBinding(rx.Var("_", _EMPTY), vm_kill_object(w))


def _set(fset: str, extra: tuple[rx.Expr, ...], k: int, value: rx.Expr) -> rx.VarBinding:
    return rx.VarBinding(rx.Var("_", _ANY), _packed(fset, extra + (_prim(k), value)))


def _lazy(func: rx.Function, fget: str | None, fset: str | None,
          get_extra: tuple[rx.Expr, ...], set_extra: tuple[rx.Expr, ...]) -> rx.Function:
    from .simple_passes import to_non_dataflow

    func, items = _split_tuple_params(func)
    func = to_non_dataflow(func)
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    ret = func.body.body
    params = list(func.params)
    fetched: set[rx.Var] = set()
    if fget is not None:
        weights = [p for p in params if not _stays_a_param(p)]
        params = [p for p in params if _stays_a_param(p)]
        # the return value reads the weights last: a binding of it stands in for it
        bindings.append(rx.VarBinding(rx.Var("ret", ret.struct_info), ret))
        bindings, cast = _fetch(bindings, weights, fget, get_extra)
        ret = bindings.pop().value
        fetched = _holders(bindings, {cast[p] for p in cast if p in items})
    ret_sinfo = func.ret_struct_info
    if fset is not None and _output_tuple(bindings, ret) is not None:
        bindings, ret = _hand_over(bindings, ret, fetched, fset, set_extra)
        ret_sinfo = _EMPTY
    extra = [e for e in get_extra + set_extra if isinstance(e, rx.Var)]
    attrs = tuple((k, v) for k, v in func.attrs if k != "relax.force_pure")
    body = rx.SeqExpr((rx.BindingBlock(tuple(bindings)),) if bindings else (), ret)
    return replace(func, params=tuple(params + extra), body=body, ret_struct_info=ret_sinfo,
                   is_pure=False, attrs=attrs)


def LazyTransformParams(fget_item: str | None = "get_item",  # noqa: N802
                        fset_item: str | None = "set_item",
                        extra_get_item_params: list[Any] | None = None,
                        extra_set_item_params: list[Any] | None = None) -> Pass:
    """The weights of each public function are fetched with the packed function `fget_item`
    (index) where first read, and its results handed to `fset_item` (index, value) after
    their last read; fetched weights are freed after their last read. The function then
    takes no weights (shapes and the extra parameters stay) and returns an empty tuple."""
    get_extra = tuple(extra_get_item_params or ())
    set_extra = tuple(extra_set_item_params or ())

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        # TVM rewrites the functions named like `transform_params` (`main_transform_params`)
        return mod.map_functions(lambda gv, f: _lazy(
            f, fget_item, fset_item, get_extra, set_extra) if isinstance(f, rx.Function)
            and gv.name_hint.endswith("transform_params") else f)
    return Pass(run, "LazyTransformParams")
