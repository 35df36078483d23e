"""Questions asked of struct info (TVM 0.27 calls it "type"): is one at least as general as
another (`type_base_check`), their least common ancestor (`type_lca`), the same info with
shapes forgotten (`get_static_type`) or with undefined symbolic dims forgotten
(`erase_to_well_defined`), and which TIR variables it uses.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, Mapping

from ..tir.expr import IntImm, PrimExpr
from ..tir.expr import Var as TirVar
from ..tir.function import free_vars as prim_free_vars
from ..tir.functor import simplify, substitute
from . import struct_info as si


class BaseCheckResult(enum.IntEnum):
    """How far `derived` is from satisfying `base`: FAIL_L0 never (kinds, dtypes or ranks
    differ), FAIL_L1 only after a run-time check of the kind, FAIL_L2 only after a run-time
    check of symbolic dims, PASS always."""

    FAIL_L0 = 0
    FAIL_L1 = 1
    FAIL_L2 = 2
    PASS = 3


B = BaseCheckResult


def _dims_equal(a: PrimExpr, b: PrimExpr) -> bool:
    a, b = simplify(a), simplify(b)
    return a is b or a == b


def _check_dims(base: tuple[PrimExpr, ...] | None, derived: tuple[PrimExpr, ...] | None
                ) -> B:
    if base is None:
        return B.PASS
    if derived is None:
        return B.FAIL_L2
    result = B.PASS
    for a, b in zip(base, derived):
        a, b = simplify(a), simplify(b)
        if isinstance(a, IntImm) and isinstance(b, IntImm) and a.value != b.value:
            return B.FAIL_L0
        if not _dims_equal(a, b):
            result = B.FAIL_L2
    return result


def _check_ndim(base: int, derived: int) -> B:
    if base == -1 or base == derived:
        return B.PASS
    return B.FAIL_L1 if derived == -1 else B.FAIL_L0


def _check_tensor(base: si.TensorStructInfo, derived: si.TensorStructInfo) -> B:
    if base.dtype and base.dtype != derived.dtype:
        return B.FAIL_L1 if not derived.dtype else B.FAIL_L0
    if base.vdevice is not None and derived.vdevice != base.vdevice:
        return B.FAIL_L1 if derived.vdevice is None else B.FAIL_L0
    ndim = _check_ndim(base.ndim, derived.ndim)
    if ndim != B.PASS:
        return ndim
    return _check_dims(base.shape, derived.shape)


def _check_shape(base: si.ShapeStructInfo, derived: si.ShapeStructInfo) -> B:
    ndim = _check_ndim(base.ndim, derived.ndim)
    return ndim if ndim != B.PASS else _check_dims(base.values, derived.values)


def _check_prim(base: si.PrimStructInfo, derived: si.PrimStructInfo) -> B:
    if base.dtype != derived.dtype:
        return B.FAIL_L0
    if base.value is None:
        return B.PASS
    if derived.value is None:
        return B.FAIL_L2
    return B.PASS if _dims_equal(base.value, derived.value) else B.FAIL_L2


def _check_fields(base: tuple[Any, ...], derived: tuple[Any, ...]) -> B:
    if len(base) != len(derived):
        return B.FAIL_L0
    return min((type_base_check(a, b) for a, b in zip(base, derived)), default=B.PASS)


def _check_func(base: si.FuncStructInfo, derived: si.FuncStructInfo) -> B:
    if base.params is None:  # an opaque function: any function of that purity
        return B.PASS if base.purity or not derived.purity else B.FAIL_L1
    if derived.params is None or (base.purity and not derived.purity):
        return B.FAIL_L1
    if len(base.params) != len(derived.params):
        return B.FAIL_L0
    # NOTE: parameters are contravariant: the derived function must accept what base does
    result = min((_min_l1(type_base_check(d, a)) for a, d in zip(base.params,
                                                                  derived.params)),
                 default=B.PASS)
    return min(result, type_base_check(base.ret, derived.ret))


def _min_l1(r: B) -> B:
    return B.FAIL_L2 if r == B.FAIL_L1 else r  # a failure on a parameter needs a run-time check


_CHECKS: dict[type, Callable[[Any, Any], B]] = {
    si.TensorStructInfo: _check_tensor, si.ShapeStructInfo: _check_shape,
    si.PrimStructInfo: _check_prim,
    si.TupleStructInfo: lambda a, b: _check_fields(a.fields, b.fields),
    si.FuncStructInfo: _check_func,
}


def type_base_check(base: si.StructInfo, derived: si.StructInfo) -> BaseCheckResult:
    """Whether every value of struct info `derived` also has struct info `base`."""
    if isinstance(base, si.ObjectStructInfo):
        return B.PASS
    if isinstance(derived, si.ObjectStructInfo):
        return B.FAIL_L1
    if type(base) is not type(derived):
        return B.FAIL_L0
    return _CHECKS[type(base)](base, derived)


def is_base_of(base: si.StructInfo, derived: si.StructInfo) -> bool:
    return type_base_check(base, derived) == B.PASS


# -- erasing ---------------------------------------------------------------------------------


def _erase_dims(dims: tuple[PrimExpr, ...] | None,
                defined: Callable[[TirVar], PrimExpr | None]
                ) -> tuple[PrimExpr, ...] | None:
    if dims is None:
        return None
    out = []
    for d in dims:
        vmap = {}
        for v in prim_free_vars(d):
            value = defined(v)
            if value is None:
                return None
            vmap[v] = value
        out.append(simplify(substitute(d, vmap)) if vmap else d)
    return tuple(out)


def _erase(sinfo: si.StructInfo, defined: Callable[[TirVar], PrimExpr | None]) -> Any:
    if isinstance(sinfo, si.TensorStructInfo):
        shape = _erase_dims(sinfo.shape, defined)
        return si.TensorStructInfo(shape, sinfo.dtype, sinfo.ndim, sinfo.vdevice)
    if isinstance(sinfo, si.ShapeStructInfo):
        return si.ShapeStructInfo(_erase_dims(sinfo.values, defined), sinfo.ndim)
    if isinstance(sinfo, si.PrimStructInfo):
        value = None if sinfo.value is None else _erase_dims((sinfo.value,), defined)
        return si.PrimStructInfo(sinfo.dtype, value[0] if value else None)
    if isinstance(sinfo, si.TupleStructInfo):
        return si.TupleStructInfo(tuple(_erase(f, defined) for f in sinfo.fields))
    return sinfo  # objects; functions keep their own symbolic vars


def _as_prim(value: Any) -> PrimExpr:
    return value if isinstance(value, PrimExpr) else IntImm("int64", int(value))


def erase_to_well_defined(sinfo: si.StructInfo, shape_var_map: Mapping[Any, Any] | None = None,
                          var_map: Mapping[Any, Any] | None = None) -> si.StructInfo:
    """`sinfo` with every symbolic dim outside `shape_var_map` forgotten (and those inside
    replaced by their values)."""
    vmap = {k: _as_prim(v) for k, v in (shape_var_map or {}).items()}
    return _erase(sinfo, vmap.get)


def seen_from_outside(body: si.StructInfo | None, params: Any) -> si.StructInfo | None:
    """A function body's struct info as TVM's normalizer leaves it: a symbolic dim defined
    inside (by a match_cast) means nothing outside, so it is forgotten; the parameters'
    dims stay."""
    if body is None:
        return None
    defined = {v for p in params for v in tir_vars_in_type(p.struct_info)}
    if all(v in defined for v in tir_vars_in_type(body)):
        return body
    return erase_to_well_defined(body, {v: v for v in defined})


def get_static_type(sinfo: si.StructInfo) -> si.StructInfo:
    """`sinfo` with every shape and known value forgotten: what is checked statically."""
    if isinstance(sinfo, si.FuncStructInfo):
        params = None if sinfo.params is None else tuple(get_static_type(p)
                                                         for p in sinfo.params)
        return si.FuncStructInfo(params, get_static_type(sinfo.ret), sinfo.purity)
    if isinstance(sinfo, si.TupleStructInfo):
        return si.TupleStructInfo(tuple(get_static_type(f) for f in sinfo.fields))
    return _erase(sinfo, lambda v: None)


# -- least common ancestor -------------------------------------------------------------------


def _lca_dims(a: tuple[PrimExpr, ...] | None, b: tuple[PrimExpr, ...] | None
              ) -> tuple[PrimExpr, ...] | None:
    if a is None or b is None or len(a) != len(b):
        return None
    return a if all(_dims_equal(x, y) for x, y in zip(a, b)) else None


def _lca_tensor(a: si.TensorStructInfo, b: si.TensorStructInfo) -> si.StructInfo:
    dtype = a.dtype if a.dtype == b.dtype else ""
    ndim = a.ndim if a.ndim == b.ndim else -1
    vdevice = a.vdevice if a.vdevice == b.vdevice else None
    return si.TensorStructInfo(_lca_dims(a.shape, b.shape), dtype, ndim, vdevice)


def _lca_func(a: si.FuncStructInfo, b: si.FuncStructInfo) -> si.StructInfo:
    purity = a.purity and b.purity
    if a.params is None or b.params is None or len(a.params) != len(b.params) or not all(
            is_base_of(x, y) and is_base_of(y, x) for x, y in zip(a.params, b.params)):
        return si.FuncStructInfo(None, type_lca(a.ret, b.ret), purity)
    return si.FuncStructInfo(a.params, type_lca(a.ret, b.ret), purity)


def type_lca(a: si.StructInfo, b: si.StructInfo) -> si.StructInfo:
    """The most specific struct info that both `a` and `b` satisfy."""
    if type(a) is not type(b) or isinstance(a, si.ObjectStructInfo):
        return si.ObjectStructInfo()
    if isinstance(a, si.TensorStructInfo):
        return _lca_tensor(a, b)
    if isinstance(a, si.ShapeStructInfo):
        ndim = a.ndim if a.ndim == b.ndim else -1
        return si.ShapeStructInfo(_lca_dims(a.values, b.values), ndim)
    if isinstance(a, si.PrimStructInfo):
        if a.dtype != b.dtype:
            return si.ObjectStructInfo()
        same = a.value is not None and b.value is not None and _dims_equal(a.value, b.value)
        return a if same else si.PrimStructInfo(a.dtype)
    if isinstance(a, si.TupleStructInfo):
        if len(a.fields) != len(b.fields):
            return si.ObjectStructInfo()
        return si.TupleStructInfo(tuple(type_lca(x, y) for x, y in zip(a.fields, b.fields)))
    return _lca_func(a, b)


# -- the TIR variables struct info uses ------------------------------------------------------


def _dims_of(sinfo: si.StructInfo) -> list[PrimExpr]:
    if isinstance(sinfo, si.TensorStructInfo):
        return list(sinfo.shape or ())
    if isinstance(sinfo, si.ShapeStructInfo):
        return list(sinfo.values or ())
    if isinstance(sinfo, si.PrimStructInfo):
        return [] if sinfo.value is None else [sinfo.value]
    if isinstance(sinfo, si.TupleStructInfo):
        return [d for f in sinfo.fields for d in _dims_of(f)]
    if isinstance(sinfo, si.FuncStructInfo):
        return [d for p in sinfo.params or () for d in _dims_of(p)] + _dims_of(sinfo.ret)
    return []


def tir_vars_in_type(sinfo: si.StructInfo) -> list[TirVar]:
    """Every TIR variable the struct info uses, once each, in order of appearance."""
    found: list[TirVar] = []
    for d in _dims_of(sinfo):
        found.extend(v for v in prim_free_vars(d) if v not in found)
    return found


def definable_tir_vars_in_type(sinfo: si.StructInfo) -> list[TirVar]:
    """The TIR variables a value of this struct info defines: those standing alone as a dim
    (`n` in `(n, n * 2)`, never `m` in `(m + 1,)`)."""
    found: list[TirVar] = []
    dims = _dims_of(sinfo) if not isinstance(sinfo, si.FuncStructInfo) else \
        [d for p in sinfo.params or () for d in _dims_of(p)]
    for d in dims:
        if isinstance(d, TirVar) and d not in found:
            found.append(d)
    return found


def collect_non_negative_expressions(sinfo: si.StructInfo) -> list[PrimExpr]:
    """The expressions the struct info requires to be >= 0 (tensor and shape dims), each
    once, in order; constants need no check and are left out, as in TVM."""
    from .structural import structural_equal

    found: list[PrimExpr] = []
    for d in _dims_of(sinfo):
        if isinstance(d, IntImm):
            continue
        if not any(d is f or structural_equal(d, f) for f in found):
            found.append(d)
    return found


def _match_dims(params: tuple[PrimExpr, ...] | None, args: tuple[PrimExpr, ...] | None,
                vmap: dict[TirVar, PrimExpr]) -> None:
    if params is None or args is None or len(params) != len(args):
        return
    for p, a in zip(params, args):
        if isinstance(p, TirVar) and p not in vmap:
            vmap[p] = a


def _match(param: si.StructInfo, arg: si.StructInfo, vmap: dict[TirVar, PrimExpr]) -> None:
    """Bind the symbolic vars that stand alone as dims of `param` to `arg`'s dims."""
    if isinstance(param, si.TensorStructInfo) and isinstance(arg, si.TensorStructInfo):
        _match_dims(param.shape, arg.shape, vmap)
    elif isinstance(param, si.ShapeStructInfo) and isinstance(arg, si.ShapeStructInfo):
        _match_dims(param.values, arg.values, vmap)
    elif isinstance(param, si.PrimStructInfo) and isinstance(arg, si.PrimStructInfo):
        _match_dims(None if param.value is None else (param.value,),
                    None if arg.value is None else (arg.value,), vmap)
    elif isinstance(param, si.TupleStructInfo) and isinstance(arg, si.TupleStructInfo):
        for p, a in zip(param.fields, arg.fields):
            _match(p, a, vmap)


def derive_call_ret_type(finfo: si.FuncStructInfo, call: Any, ctx: Any = None
                         ) -> si.StructInfo:
    """The struct info of `call`'s result, a call of a function of struct info `finfo`: the
    function's symbolic dims are matched against the arguments, and the return struct info
    keeps those it can express."""
    if finfo.params is None:
        return finfo.ret
    args = [a.struct_info for a in call.args]
    if len(args) != len(finfo.params):
        raise ValueError(f"the function takes {len(finfo.params)} arguments but the call "
                         f"gives {len(args)}")
    vmap: dict[TirVar, PrimExpr] = {}
    for param, arg in zip(finfo.params, args):
        _match(param, arg or si.ObjectStructInfo(), vmap)
    own = set(tir_vars_in_type(finfo))

    def defined(v: TirVar) -> PrimExpr | None:  # the caller's own vars stay as they are
        return vmap.get(v) if v in own else v

    for param, arg in zip(finfo.params, args):
        if type_base_check(_erase(param, defined), arg or si.ObjectStructInfo()) == B.FAIL_L0:
            raise ValueError(f"the argument's struct info {arg} does not match the parameter's "
                             f"{param}")
    return _erase(finfo.ret, defined)
