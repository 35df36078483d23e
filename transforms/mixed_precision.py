"""ToMixedPrecision (TVM's pass): float32 dataflow blocks computed in float16 where TVM 0.27
does, with TVM's casts.

Each operator has TVM's mixed-precision policy (`TMixedPrecisionPolicy`):
- always (matmul, convolutions, attention): float16 operands, accumulating in `out_dtype`;
  inside the block the result is stored as float16;
- follow (elementwise math, reshapes, pooling, norms, ...): float16 when every tensor operand
  already is float16 (or is a constant that fits in float16), else float32;
- none (every other call): operands back in their original dtypes.
Values leaving the block (its output variables) get their original dtype back. Parameters read
only by "always" operators are cast once at the start of the first dataflow block; other casts
are emitted where first needed and reused. `fp16_input_names` makes those parameters float16
in the signature.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars, var_use_counts
from ..ir.module import IRModule
from ..ir.op import with_inferred_struct_info
from ..ir.structural import structural_equal
from ..tir.attrs import Attrs
from .graph_rewrites import op
from .mixed_precision_policy import ALWAYS, FOLLOW
from .pass_infra import Pass, PassContext

_HALF, _FULL = "float16", "float32"
_FP16_MAX = 65504.0


def _dtype(e: Any) -> str:
    s = getattr(e, "struct_info", None)
    return s.dtype if isinstance(s, si.TensorStructInfo) else ""


def _leaves(e: rx.Expr) -> list[rx.Expr]:
    return [x for f in e.fields for x in _leaves(f)] if isinstance(e, rx.Tuple) else [e]


def _fits_half(e: rx.Expr) -> bool:
    if not isinstance(e, rx.Constant) or _dtype(e) != _FULL:
        return False
    data = np.asarray(e.data.numpy())
    return bool(np.all(np.isfinite(data)) and np.all(np.abs(data) <= _FP16_MAX))


def _policy(v: Any) -> str | None:
    if not (isinstance(v, rx.Call) and isinstance(v.op, rx.Op)):
        return None
    return "always" if v.op.name in ALWAYS else "follow" if v.op.name in FOLLOW else None


def _always_only_params(func: rx.Function) -> list[rx.Var]:
    """float32 parameters whose every read is an operand of an "always" operator."""
    other: set[rx.Var] = set(var_use_counts(func.body.body))
    always: set[rx.Var] = set()
    for blk in func.body.blocks:
        for b in blk.bindings:
            direct = {a for a in b.value.args if isinstance(a, rx.Var)} if _policy(
                b.value) == "always" and isinstance(blk, rx.DataflowBlock) else set()
            for v in var_use_counts(b.value):
                (always if v in direct else other).add(v)
    return [p for p in func.params if p in always and p not in other and _dtype(p) == _FULL]


class _Rewriter:
    """Rewrites the dataflow blocks of one function (see the module docstring)."""

    def __init__(self, out_dtype: str, renamed: dict[rx.Var, rx.Var]) -> None:
        self.out_dtype = out_dtype
        self.cur: dict[rx.Var, rx.Expr] = dict(renamed)  # old variable -> its new value
        self.casts: dict[tuple[int, str], rx.Var] = {}
        self.out: list[Any] = []
        self.count = 0

    def emit(self, value: rx.Expr) -> rx.DataflowVar:
        name = f"lv{self.count}" if self.count else "lv"  # TVM's names: lv, lv1, lv2, ...
        self.count += 1
        var = rx.DataflowVar(name, value.struct_info)
        self.out.append(rx.VarBinding(var, value))
        return var

    def cast(self, e: rx.Expr, dtype: str) -> rx.Expr:
        """`e` (new) as `dtype` when it is a float tensor of another float dtype; casts of a
        variable or constant are emitted once."""
        if isinstance(e, rx.Tuple):
            return rx.Tuple(tuple(self.cast(f, dtype) for f in e.fields))
        if _dtype(e) not in (_HALF, _FULL) or _dtype(e) == dtype:
            return e
        key = (id(e), dtype)
        if key not in self.casts:
            self.casts[key] = self.emit(op("astype")(e, dtype))
        return self.casts[key]

    def new(self, e: rx.Expr) -> rx.Expr:
        return substitute_vars(e, self.cur) if self.cur else e

    def block(self, blk: rx.DataflowBlock, precast: list[rx.Var]) -> rx.DataflowBlock:
        self.out = []
        for p in precast:
            self.cast(self.new(p), _HALF)
        for b in blk.bindings:
            if isinstance(b, rx.MatchCast):
                self.out.append(replace(b, value=self.new(b.value)))
            else:
                self.bind(b.var, self.value(b.var, b.value))
        return replace(blk, bindings=tuple(self.out))

    def value(self, var: rx.Var, v: rx.Expr) -> rx.Expr:
        policy = _policy(v)
        if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and \
                v.op.name == "relax.wrap_param" and _dtype(self.new(v.args[0])) == _HALF:
            return self.new(v.args[0])  # the float16 weight is used as it is
        if policy == "always" and all(_dtype(a) in (_HALF, _FULL) for a in v.args[:2]):
            attrs = Attrs(tuple((k, x) for k, x in v.attrs if k != "out_dtype") +
                          (("out_dtype", self.out_dtype),))
            args = tuple(self.cast(self.new(a), _HALF) for a in v.args)
            call = with_inferred_struct_info(replace(v, args=args, attrs=attrs,
                                                     struct_info=None))
            return self.store(call, _HALF if isinstance(var, rx.DataflowVar) else _dtype(var))
        if policy == "follow":
            args = tuple(self.new(a) for a in v.args)
            floats = [x for a in args for x in _leaves(a) if _dtype(x)]
            if not any(_dtype(x) in (_HALF, _FULL) for x in floats):
                return self.rebuild(v, args)
            half = all(_dtype(x) == _HALF or _fits_half(x) for x in floats)
            return self.rebuild(v, tuple(self.cast(a, _HALF if half else _FULL) for a in args))
        if isinstance(v, rx.Call):  # its operands keep their dtypes: so does its result
            return replace(v, args=tuple(self.original(a) for a in v.args))
        return self.plain(v)

    def original(self, old: rx.Expr) -> rx.Expr:
        """An operand of an operator without policy: back in its original dtype."""
        if isinstance(old, rx.Tuple):
            return rx.Tuple(tuple(self.original(f) for f in old.fields))
        new = self.new(old)
        return self.cast(new, _dtype(old)) if isinstance(old, rx.Var) and _dtype(old) else new

    def rebuild(self, v: rx.Call, args: tuple[rx.Expr, ...]) -> rx.Expr:
        if isinstance(v.op, rx.Op):
            return with_inferred_struct_info(replace(v, args=args, struct_info=None))
        return replace(v, args=args)

    def plain(self, v: rx.Expr) -> rx.Expr:
        new = self.new(v)
        if isinstance(new, rx.TupleGetItem) and isinstance(
                new.tuple_value.struct_info, si.TupleStructInfo):
            return replace(new, struct_info=new.tuple_value.struct_info.fields[new.index])
        if isinstance(new, rx.Tuple):
            return rx.Tuple(new.fields)
        return new

    def store(self, value: rx.Expr, dtype: str) -> rx.Expr:
        """`value` as `dtype`: bound to a new variable and cast when its dtype differs."""
        if not dtype or _dtype(value) in ("", dtype):
            return value
        leaf = isinstance(value, (rx.Var, rx.Constant))
        return op("astype")(value if leaf else self.emit(value), dtype)

    def bind(self, var: rx.Var, value: rx.Expr) -> None:
        if not isinstance(var, rx.DataflowVar):  # leaves the block: its original dtype
            value = self.store(value, _dtype(var))
        new = type(var)(var.name_hint, value.struct_info, var.span)
        self.out.append(rx.VarBinding(new, value))
        self.cur[var] = new


def _half_params(func: rx.Function, names: set[str]) -> tuple[rx.Function, dict]:
    """Parameters named in `names` become float16 in the signature."""
    renamed: dict[rx.Var, rx.Var] = {}
    params = []
    for p in func.params:
        if p.name_hint in names and _dtype(p) == _FULL:
            renamed[p] = rx.Var(p.name_hint, replace(p.struct_info, dtype=_HALF), p.span)
        params.append(renamed.get(p, p))
    return replace(func, params=tuple(params)), renamed


def _mixed(func: rx.Function, out_dtype: str, names: set[str]) -> rx.Function:
    if not any(isinstance(b, rx.DataflowBlock) for b in func.body.blocks):
        return func
    precast = _always_only_params(func)
    func, renamed = _half_params(func, names)
    precast = [p for p in precast if p not in renamed]
    rw = _Rewriter(out_dtype, renamed)
    blocks = []
    for blk in func.body.blocks:
        if isinstance(blk, rx.DataflowBlock):
            blocks.append(rw.block(blk, precast))
            precast = []
        else:
            blocks.append(replace(blk, bindings=tuple(replace(b, value=rw.new(b.value))
                                                      for b in blk.bindings)))
    body = replace(func.body, blocks=tuple(blocks), body=rw.new(func.body.body))
    # NOTE: the rewritten function returns what its body gives (as TVM's pass rebuilds it),
    # even where the old annotation disagreed; Function erases dims the params do not define
    new = replace(func, body=body, ret_struct_info=rx.refine_return(
        func.params, si.ObjectStructInfo(), body))
    return func if not renamed and structural_equal(new.body, func.body) else new


def ToMixedPrecision(out_dtype: str = "float32",  # noqa: N802
                     fp16_input_names: list[str] | None = None) -> Pass:
    """Compute float32 dataflow blocks in float16 where TVM does (see the module docstring)."""
    if out_dtype not in (_FULL, _HALF):
        raise ValueError(f"ToMixedPrecision: out_dtype must be 'float32' or 'float16', not "
                         f"{out_dtype!r}")
    names = set(fp16_input_names or ())

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _mixed(f, out_dtype, names)
                                 if isinstance(f, rx.Function) else f)
    return Pass(run, "ToMixedPrecision")
