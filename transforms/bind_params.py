"""BindParams: replace parameters of a graph function by constants, dropping them from it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..ir.expr import Constant, Expr, Function, PrimValue, Var
from ..ir.reemit import ReemitMutator
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo, StructInfo, TensorStructInfo
from ..tir.expr import IntImm, PrimExpr
from ..tir.expr import const as prim_const
from ..tir.expr import Var as TirVar
from .bind_symbolic import bind_symbolic_vars
from .pass_infra import Pass, PassContext


def BindParams(func_name: str, params: dict[Any, Any]) -> Pass:  # noqa: N802 (TVM's name)
    """Bind `params` (keyed by parameter name or relax Var; values NDArray or numpy) as constants.

    Each bound tensor must match the parameter's static shape and dtype; the function keeps
    only the parameters that were not bound.
    """

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        func = mod[func_name]
        if not isinstance(func, Function):
            raise TypeError(f"BindParams: {func_name!r} is not a relax function")
        mapping = {p: _constant_for(p, params) for p in func.params if _key_of(p, params)}
        unknown = set(_names(params)) - {p.name_hint for p in func.params}
        if unknown:
            raise BindParamsError(f"BindParams: {func_name} has no parameter named "
                                  f"{', '.join(sorted(unknown))}; it has "
                                  f"{', '.join(p.name_hint for p in func.params)}")
        # the bound shapes fix the symbolic dims they fill (n of a (n, m) weight): as in TVM;
        # checked first, so that conflicting dims are reported as such
        dims = _inferred_dims(func, mapping)
        # re-emitted as TVM's pass does: the bindings that use a bound parameter get their
        # struct info inferred again (an annotation less precise than the constant is lost)
        body = ReemitMutator(mapping).visit(func.body)
        kept = tuple(p for p in func.params if p not in mapping)
        new = replace(func, params=kept, body=body)
        return mod.with_function(func_name, bind_symbolic_vars(new, dims) if dims else new)

    return Pass(run, "BindParams")


class BindParamsError(ValueError, RuntimeError):
    """A binding names no parameter, or gives a symbolic parameter a value it cannot take
    (TVM raises its InternalError, a RuntimeError, or a ValueError: both catch this)."""


def bind_function_params(func: Function, binding_map: dict[Any, Any]) -> Function:
    """TVM's `Function.bind_params`: each parameter named (by Var or name) in `binding_map`
    replaced by its value -- a relax expression as is, a tensor as a constant, a number or
    PrimExpr as a PrimValue -- and dropped from the parameters; the symbolic dims a bound
    tensor fixes are bound too."""
    mapping: dict[Var, Any] = {}
    for p in func.params:
        key = _key_of(p, binding_map)
        if key is not None:
            mapping[p] = _bound_value(p, binding_map[key], binding_map)
    unknown = set(_names(binding_map)) - {p.name_hint for p in func.params}
    if unknown:
        raise BindParamsError(f"bind_params: the function has no parameter named "
                              f"{', '.join(sorted(unknown))}; its parameters are "
                              f"{', '.join(p.name_hint for p in func.params) or 'none'}")
    body = ReemitMutator(mapping).visit(func.body)
    new = replace(func, params=tuple(p for p in func.params if p not in mapping), body=body,
                  ret_struct_info=_bound_return(func.ret_struct_info, body.struct_info))
    consts = {p: c for p, c in mapping.items() if isinstance(c, Constant)}
    dims = _inferred_dims(func, consts)
    return bind_symbolic_vars(new, dims) if dims else new


def _bound_value(p: Var, value: Any, binding_map: dict[Any, Any]) -> Expr:
    """The relax expression `value` binds parameter `p` to; a PrimStructInfo parameter (a
    symbolic value) takes only a primitive value, as TVM requires."""
    if isinstance(p.struct_info, PrimStructInfo):
        if isinstance(value, bool | int | float):
            dtype = p.struct_info.dtype or ("int64" if isinstance(value, int) else "float32")
            value = prim_const(value, dtype)
        if isinstance(value, PrimValue):
            return value
        if not isinstance(value, PrimExpr):
            raise BindParamsError(f"Explicit binding for symbolic variable {p.name_hint} must "
                                  f"be a primitive expression, but received {value!r:.80}")
        return PrimValue(value, PrimStructInfo(value.dtype, value=value))
    if isinstance(value, Expr):
        return value
    return _constant_for(p, binding_map)


def _bound_return(declared: StructInfo | None, body: StructInfo | None) -> StructInfo | None:
    """The return struct info after binding: the body's, which the bound values made more
    precise (a symbolic dim of the declared one may now be a number); except that a declared
    `R.Prim(dtype)` stays (TVM 0.27's PrimType carries no value for a bound number to add)."""
    if isinstance(declared, PrimStructInfo) and declared.value is None:
        return declared
    return body or declared


def _inferred_dims(func: Function, mapping: dict[Var, Constant]) -> dict[Any, Any]:
    """Each symbolic dim of a bound parameter's shape, as the bound tensor's extent."""
    dims: dict[TirVar, int] = {}
    for p, const in mapping.items():
        sinfo = p.struct_info
        if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            continue
        for dim, extent in zip(sinfo.shape, const.data.shape):
            if isinstance(dim, TirVar):
                if dims.setdefault(dim, int(extent)) != int(extent):
                    raise ValueError(f"BindParams: symbolic dim {dim.name} of {p.name_hint} is "
                                     f"{extent}, but another parameter bound it to {dims[dim]}")
    return dims


def _names(params: dict[Any, Any]) -> list[str]:
    return [k if isinstance(k, str) else k.name_hint for k in params]


def _key_of(p: Var, params: dict[Any, Any]) -> Any:
    for k in params:
        if k is p or (isinstance(k, str) and k == p.name_hint):
            return k
    return None


def _constant_for(p: Var, params: dict[Any, Any]) -> Constant:
    from ..vm.ndarray import NDArray, array

    value = params[_key_of(p, params)]
    data = value if isinstance(value, NDArray) else array(np.asarray(value))
    sinfo = p.struct_info
    if isinstance(sinfo, TensorStructInfo):
        _check_matches(p.name_hint, sinfo, data)
    shape = tuple(IntImm("int64", d) for d in data.shape)
    return Constant(data, TensorStructInfo(shape, str(data.dtype)))


def _check_matches(name: str, sinfo: TensorStructInfo, data: Any) -> None:
    if sinfo.dtype and sinfo.dtype != str(data.dtype):
        raise ValueError(f"BindParams: parameter {name} expects dtype {sinfo.dtype}, "
                         f"got {data.dtype}")
    if sinfo.ndim >= 0 and sinfo.ndim != len(data.shape):
        raise ValueError(f"BindParams: parameter {name} expects rank {sinfo.ndim}, "
                         f"got shape {tuple(data.shape)}")
    for axis, dim in enumerate(sinfo.shape or ()):
        if isinstance(dim, IntImm) and dim.value != data.shape[axis]:
            raise ValueError(f"BindParams: parameter {name} expects shape "
                             f"{sinfo.static_shape or sinfo.shape}, got {tuple(data.shape)}")
