"""`define_subroutine = True` on an nn.Module class: each call of the module while exporting
becomes a call of a private relax function (named after the class, `layer`, `activation`)
that takes the call's tensors and the module's weights. One function per distinct class and
argument/weight shapes; nested subroutine modules nest their calls."""

from __future__ import annotations

import re
from typing import Any, Callable

from ...ir import expr as rx
from ...ir.module import fresh_name
from ...ir.struct_info import call_ret_sinfo
from ...tir import expr as tx
from .core import Module, Tensor
from .exporter import _bound, _unwrap, current


def call_subroutine(module: Module, forward: Callable[..., Any], args: tuple[Any, ...]
                    ) -> Any:
    exporter = current()
    params = list(module.named_parameters())
    key = (type(module), tuple(_sinfo_key(a._expr.struct_info) for a in args),
           tuple(_sinfo_key(p._expr.struct_info) for _, p in params))
    gvar = exporter.subroutines.get(key)
    if gvar is None:
        gvar = _define(exporter, module, forward, args, params)
        exporter.subroutines[key] = gvar
    func = exporter.builder.get()[gvar]
    values = tuple(a._expr for a in args) + tuple(p._expr for _, p in params)
    call = rx.Call(rx.GlobalVarRef(gvar, func.struct_info), values,
                   struct_info=call_ret_sinfo(func.struct_info, values))
    return exporter.wrap(call, _snake(type(module).__name__))


def _define(exporter: Any, module: Module, forward: Callable[..., Any], args: tuple[Any, ...],
            params: list[tuple[str, Any]]) -> Any:
    import inspect

    bb = exporter.builder
    arg_names = [p for p in inspect.signature(forward).parameters][:len(args)]
    in_vars = [rx.Var(n, a._expr.struct_info) for n, a in zip(arg_names, args)]
    param_vars = [rx.Var(n.replace(".", "_"), p._expr.struct_info) for n, p in params]
    taken = {gv.name_hint for gv in bb.get().functions} | exporter.reserved
    name = fresh_name(_snake(type(module).__name__), taken)
    outer = bb._suspend_function()
    saved = (exporter.bound_calls, exporter.io)
    exporter.bound_calls, exporter.io = {}, None
    try:
        with _bound(params, param_vars), bb.function(name, in_vars + param_vars, private=True):
            with bb.dataflow():
                out = _unwrap(forward(*(Tensor(_expr=v) for v in in_vars)), name)
                gv = bb.emit_output(exporter._flatten(out), name_hint="dataflow_output")
            bb.emit_func_output(gv)
    finally:
        exporter.bound_calls, exporter.io = saved
        bb._resume_function(outer)
    gvar = next(g for g in bb.get().functions if g.name_hint == name)
    bb.update_func(gvar, _own_symbolic_vars(bb.get()[gvar]))
    return gvar


def _param_dims(func: rx.Function) -> list[tuple[Any, Any]]:
    return [(p, d) for p in func.params for d in (getattr(p.struct_info, "shape", None) or ())]


def _own_symbolic_vars(func: rx.Function) -> rx.Function:
    """The function with fresh symbolic vars for those its parameters define: each function
    of a module defines its own (`batch_size` of a subroutine is not the caller's)."""
    from ...transforms.bind_symbolic import bind_symbolic_vars

    fresh = {d: tx.Var(d.name, d.dtype) for _, d in _param_dims(func) if isinstance(d, tx.Var)}
    return bind_symbolic_vars(func, fresh) if fresh else func


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _sinfo_key(sinfo: Any) -> Any:
    shape = getattr(sinfo, "shape", None)
    dims = None if shape is None else tuple(str(d) for d in shape)
    return type(sinfo).__name__, dims, getattr(sinfo, "dtype", None)


def wants_subroutine(module: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """A subroutine call: the class asks for it, an export is running, and the arguments
    are tensors only."""
    from .exporter import _ACTIVE

    return (bool(getattr(type(module), "define_subroutine", False)) and bool(_ACTIVE)
            and not kwargs and bool(args) and all(isinstance(a, Tensor) for a in args))
