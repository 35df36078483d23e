"""From relax values to te placeholders and back: the shared core of LegalizeOps and
`BlockBuilder.emit_te`.

`TEEmitter.call_te(fn, args, name)` makes a placeholder for every tensor argument (with the
argument's own shape expressions, so symbolic dims are the function's variables), calls `fn`,
turns the result into a PrimFunc with `te.create_prim_func`, adds it to the module under a
fresh name (or reuses an identical earlier one) and returns the `call_tir` expression.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ... import te
from ...topi.parallel_rule import parallelize_plain
from ...topi.schedule_mode import scheduled
from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.module import GlobalVar, fresh_name
from ...ir.op import CALL_TIR
from ...ir.structural import structural_equal, structural_hash
from ...tir import expr as tx
from ...tir.function import PrimFunc, free_vars, shape_vars
from ...tir.functor import Substituter

_OPAQUE = si.FuncStructInfo(None, si.ObjectStructInfo())


class TEEmitter:
    """Adds te-made prim_funcs to a function table (`funcs`: GlobalVar -> function)."""

    def __init__(self, funcs: dict[GlobalVar, Any], dedup: bool = False) -> None:
        self.funcs = funcs
        # NOTE: BlockBuilder's emit_te reuses structurally equal prim_funcs, as TVM's does;
        # the passes key their own reuse (hashing every kernel cost a warm MLP build 4 ms)
        self.dedup = dedup
        self.names = {gv.name_hint for gv in funcs}
        self.cache: dict[Any, GlobalVar] = {}
        self.emitted: dict[int, list[tuple[PrimFunc, GlobalVar]]] = {}  # by structural hash

    def fresh_name(self, base: str) -> str:
        name = fresh_name(base, self.names)
        self.names.add(name)
        return name

    def add_func(self, func: PrimFunc, base: str, key: Any = None) -> GlobalVar:
        """The GlobalVar of `func` added under a fresh name from `base`; an earlier function
        with the same `key`, or (without a key, when deduplicating) structurally equal, is
        reused."""
        if key is not None and key in self.cache:
            return self.cache[key]
        if key is None and self.dedup:
            same = self._equal_earlier(func)
            if same is not None:
                return same
        name = self.fresh_name(base)
        gv = GlobalVar(name)
        self.funcs[gv] = own_shape_vars(func)
        if key is not None:
            self.cache[key] = gv
        elif self.dedup:
            self.emitted.setdefault(structural_hash(func), []).append((func, gv))
        return gv

    def _equal_earlier(self, func: PrimFunc) -> GlobalVar | None:
        for earlier, gv in self.emitted.get(structural_hash(func), ()):
            if gv in self.funcs and structural_equal(earlier, func):
                return gv
        return None

    def call_te(self, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
                name: str, key: Any = None, out_sinfo: si.StructInfo | None = None
                ) -> rx.Call:
        """`call_tir` of the prim_func computing `fn(*te_args, **kwargs)`."""
        inputs: list[rx.Expr] = []
        placeholders: list[Any] = []  # te tensors and scalar parameters
        te_args = [_to_te(a, inputs, placeholders) for a in args]
        te_kwargs = {k: _to_te(v, inputs, placeholders) for k, v in kwargs.items()}
        out = fn(*te_args, **te_kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if scheduled():  # the big loops of a kernel no rule scheduled, on every core
            parallelize_plain([t for t in outs if isinstance(t, te.Tensor)])
        unbound = _unbound_vars(placeholders, outs, [te_args, te_kwargs])
        # TVM passes them after the inputs
        inputs += [rx.PrimValue(v, si.PrimStructInfo(v.dtype, v)) for v in unbound]
        # the module names the function: its "main" symbol goes, as in TVM's emit_te
        # NOTE: int64 indices, as TVM's gen_call_tir_inputs asks (the build's scheduled
        # kernels are made int64 by their computes already)
        index_dtype = None if scheduled() else "int64"
        func = te.create_prim_func(placeholders + unbound + outs, index_dtype
                                   ).without_attr("global_symbol")
        gv = self.add_func(func, name, key)
        sinfo = out_sinfo or _sinfo_of(outs)
        targs = rx.Tuple(tuple(inputs), si.TupleStructInfo(tuple(
            i.struct_info or si.ObjectStructInfo() for i in inputs)))
        return rx.Call(CALL_TIR, (rx.GlobalVarRef(gv, _OPAQUE), targs), sinfo_args=(sinfo,),
                       struct_info=sinfo)


def _unbound_vars(placeholders: list[Any], outs: list[te.Tensor], te_args: Any
                  ) -> list[tx.Var]:
    """Symbolic vars the kernel uses (in a shape or a scalar argument) that no input tensor
    has as a dim: they become scalar parameters, as TVM's call_te makes them."""
    tensors = [p for p in placeholders if isinstance(p, te.Tensor)]
    bound = {d for t in tensors + outs for d in t.shape if isinstance(d, tx.Var)}
    bound |= {p for p in placeholders if isinstance(p, tx.Var)}
    used: list[tx.Var] = []
    for e in [d for t in tensors + outs for d in t.shape] + _prim_exprs(te_args):
        used += [v for v in free_vars(e) if v not in bound and v not in used
                 and not isinstance(v, te.AxisVar)]
    return used


def _prim_exprs(value: Any) -> list[tx.PrimExpr]:
    """The TIR expressions among converted arguments (nested lists, tuples, dicts)."""
    if isinstance(value, tx.PrimExpr):
        return [value]
    if isinstance(value, (list, tuple)):
        return [e for v in value for e in _prim_exprs(v)]
    if isinstance(value, dict):
        return [e for v in value.values() for e in _prim_exprs(v)]
    return []


def own_shape_vars(func: PrimFunc) -> PrimFunc:
    """`func` with fresh copies of its symbolic dims: a prim_func is a function of its own, so
    (as in TVM) it binds its own `T.int64()` vars rather than sharing the graph function's."""
    bare = {d for _, buf in func.buffer_map for d in buf.shape if isinstance(d, tx.Var)}
    # NOTE: a var no buffer has as a dim is a scalar parameter (call_te's unbound vars)
    dims = [v for v in shape_vars(func) if v in bare]
    handles = {p for p, _ in func.buffer_map}
    scalars = [p for p in func.params if p not in handles and p not in dims]
    if not dims and not scalars:
        return func
    fresh = {v: tx.Var(v.name, v.dtype) for v in dims + scalars}
    sub = Substituter(fresh, buffers=True)
    return replace(func, params=tuple(fresh.get(p, p) for p in func.params),
                   buffer_map=sub.visit(func.buffer_map), body=sub.visit(func.body))


def _to_te(value: Any, inputs: list[rx.Expr], placeholders: list[Any]) -> Any:
    """A relax tensor becomes a placeholder (recorded as a call_tir input); shapes become
    their dims; tuples recurse; anything else passes through."""
    if isinstance(value, rx.Expr) and isinstance(value.struct_info, si.TensorStructInfo):
        s = value.struct_info
        if s.shape is None or not s.dtype:
            raise ValueError(f"cannot make a te placeholder for {value!r}: its shape and dtype "
                             f"must be known, got {s}")
        # NOTE: one placeholder per argument, even when an argument repeats (TVM's emit_te:
        # R.add(y, y) becomes add(y, y_1, T_add))
        name = value.name_hint if isinstance(value, rx.Var) else f"x{len(inputs)}"
        t = te.placeholder(s.shape, s.dtype, name)
        inputs.append(value)
        placeholders.append(t)
        return t
    if isinstance(value, rx.Expr) and not isinstance(value, rx.PrimValue) and isinstance(
            value.struct_info, si.PrimStructInfo):
        # NOTE: an R.Prim value that is not a literal becomes a scalar parameter, passed by
        # call_tir in its place among the inputs (TVM's `rhs: T.float32`)
        for k, prev in enumerate(inputs):
            if prev is value:
                return placeholders[k]
        name = value.name_hint if isinstance(value, rx.Var) else f"x{len(inputs)}"
        param = tx.Var(name, value.struct_info.dtype)
        inputs.append(value)
        placeholders.append(param)
        return param
    if isinstance(value, rx.ShapeExpr):
        return value.values
    if isinstance(value, rx.PrimValue):
        return value.value
    if isinstance(value, rx.Tuple):
        return [_to_te(f, inputs, placeholders) for f in value.fields]
    if isinstance(value, (list, tuple)):
        return type(value)(_to_te(v, inputs, placeholders) for v in value)
    if isinstance(value, dict):
        return {k: _to_te(v, inputs, placeholders) for k, v in value.items()}
    return value


def _sinfo_of(outs: list[te.Tensor]) -> si.StructInfo:
    fields = tuple(si.TensorStructInfo(t.shape, t.dtype) for t in outs)
    return fields[0] if len(fields) == 1 else si.TupleStructInfo(fields)


def sinfo_key(e: rx.Expr) -> Any:
    """A hashable description of an argument for reusing identical prim_funcs."""
    s = e.struct_info
    if isinstance(s, si.TensorStructInfo):
        return ("T", s.dtype, tuple(d.value if isinstance(d, tx.IntImm) else id(d)
                                    for d in s.shape or ()))
    if isinstance(e, rx.ShapeExpr):
        return ("S", tuple(d.value if isinstance(d, tx.IntImm) else id(d) for d in e.values))
    if isinstance(e, rx.Tuple):
        return ("U", tuple(sinfo_key(f) for f in e.fields))
    return ("O", id(e))
