"""LegalizeOps: every high-level operator call becomes `call_tir` of a te-made prim_func.

In: graph functions with `relax.<op>` calls whose arguments have known shapes and dtypes.
Out: the same functions with those calls replaced by `R.call_tir(<op>, args, out_sinfo)` and
one prim_func per distinct (operator, attributes, argument shapes) added to the module, named
after the operator as TVM does (`add`, `add1`, `matmul`, `relu`, ...). Calls whose shapes are
unknown, or of operators without a rule, are left for a later pass (or a clear build error).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.functor import ExprMutator
from ...ir.module import IRModule
from ...ir.op import op_attr, register_attr_default, was_reset
from ...ir.structural import structural_equal
from ...ir.type_analysis import is_base_of, seen_from_outside
from ...tir.analyzer import Analyzer
from ...ir.ops.elementwise import BINARY, COMPARE, LOGICAL
from ...tir import expr as tx
from ..pass_infra import Pass, PassContext
from .bb_rules import BB_LEGALIZE, run_bb_rule
from .emit import TEEmitter, sinfo_key
from . import rules_ext  # noqa: F401 (registers the newer operators' rules)
from . import rules_base  # noqa: F401 (bitwise and base operators' rules)
from . import rules_vision  # noqa: F401 (R.vision.*)
from . import rules_nn3d  # noqa: F401 (R.nn.conv3d, the 3-d pools)
from . import rules_layout  # noqa: F401 (R.layout_transform)
from . import rules_image  # noqa: F401 (R.image.resize3d, grid_sample)
from . import rules_fold  # noqa: F401 (arange and astype of constants)
from .rules import FOLD, LEGALIZE, primfunc_name, register_legalize

__all__ = ["LegalizeOps", "register_legalize", "LEGALIZE", "TEEmitter"]


class _Legalizer(ExprMutator):
    def __init__(self, emitter: TEEmitter, rules: dict[str, Callable[..., Any]],
                 bb_rules: dict[str, Callable[..., Any]] | None = None) -> None:
        self.emitter, self.rules, self.bb_rules = emitter, rules, bb_rules or {}
        self.remap: dict[rx.Var, rx.Var] = {}
        # bindings to put before the one being visited (None outside a binding block)
        self.pending: list[rx.VarBinding] | None = None
        self.dataflow = False

    # NOTE: as TVM's ExprMutator re-emits a binding, a variable whose value now has another
    # struct info (a shape written differently) takes the value's, and its uses follow
    def visit_binding(self, binding: Any) -> Any:
        new = super().visit_binding(binding)
        if new is binding or not isinstance(new, rx.VarBinding):
            return new
        sinfo = new.value.struct_info
        if sinfo is None or structural_equal(sinfo, new.var.struct_info):
            return new
        var = replace(new.var, struct_info=sinfo)
        self.remap[binding.var] = var
        return replace(new, var=var)

    def visit_Function(self, func: rx.Function) -> rx.Function:
        """A changed function returns what its new body gives, unless its return struct info
        already says the same (a shape written differently): TVM's LegalizeOps output."""
        new = self.generic_visit(func)
        body = seen_from_outside(getattr(new.body, "struct_info", None), new.params)
        ret = new.ret_struct_info
        if new is func or body is None or (ret is not None and _says_the_same(ret, body)):
            return new
        return replace(new, ret_struct_info=body)

    def visit_Var(self, var: rx.Var) -> rx.Expr:
        return self.remap.get(var, var)

    visit_DataflowVar = visit_Var

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        out: list[Any] = []
        outer = self.pending, self.dataflow  # an If's branches are blocks inside a binding
        self.dataflow = isinstance(block, rx.DataflowBlock)
        for b in block.bindings:
            self.pending = []
            new = self.visit_binding(b)
            out += [*self.pending, new]
        self.pending, self.dataflow = outer
        return block if _same_items(out, block.bindings) else replace(block, bindings=tuple(out))

    def expand_tuple(self, e: rx.Expr) -> rx.Expr:
        """A tuple-typed variable as a Tuple of its items (te sees a list of tensors), each
        item bound to a variable first, as TVM's legalization emits `gv = t[0]`."""
        s = e.struct_info
        if not isinstance(s, si.TupleStructInfo) or isinstance(e, rx.Tuple):
            return e
        items: list[rx.Expr] = [rx.TupleGetItem(e, i, f) for i, f in enumerate(s.fields)]
        if self.pending is not None:
            make = rx.DataflowVar if self.dataflow else rx.Var
            names = ("lv" if self.dataflow else "gv") + "{}"
            bound = [make(names.format(len(self.pending) + k or ""), f)
                     for k, f in enumerate(s.fields)]
            self.pending += [rx.VarBinding(v, item) for v, item in zip(bound, items)]
            items = list(bound)
        return rx.Tuple(tuple(items), s)

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        call = self.generic_visit(call)
        bb_rule = self.bb_rules.get(call.op.name) or op_attr(call.op.name, "FLegalize") \
            if isinstance(call.op, rx.Op) else None
        if bb_rule is not None:  # TVM's f(bb, call); its result may need legalizing in turn
            if not all(_known(a) for a in call.args):
                return call
            return self.visit(run_bb_rule(bb_rule, call, self.emitter))
        if not isinstance(call.op, rx.Op) or call.op.name not in self.rules or \
                was_reset(call.op.name, "FLegalize"):  # as TVM: an op without FLegalize stays
            return call
        if not all(_known(a) for a in call.args):
            _check_dtypes_known(call)
            return call
        if not _known_sinfo(call.struct_info) and op_attr(call.op.name, "vm_builtin"):
            return call  # a result shaped at run time (reshape to a computed shape): the VM's
        folded = FOLD[call.op.name](call) if call.op.name in FOLD else None
        if folded is not None:
            return folded
        args = [self.expand_tuple(a) for a in call.args]
        if call.op.name in SHAPE_ONLY:  # the kernel needs the argument's shape, not its data
            k = SHAPE_ONLY[call.op.name]
            s = args[k].struct_info
            dims = tuple(s.values if isinstance(s, si.ShapeStructInfo) else s.shape)
            args[k] = rx.ShapeExpr(dims, si.ShapeStructInfo(dims))
        if call.op.name in SCALAR_OPERAND_OPS:
            args = _inline_scalar_constants(args)
        rule = self.rules[call.op.name]
        ids = [id(a) for a in args]
        key = (call.op.name, call.attrs, tuple(_arg_key(a) for a in args),
               tuple(ids.index(i) for i in ids))
        base = primfunc_name(call.op.name, call)
        kind = _device_kind(call)
        if kind is not None:  # TVM makes one kernel per virtual device, for its target
            base, key = f"{base}_{kind}", (key, kind)
        out = call.struct_info if _known_sinfo(call.struct_info) else None
        if kind is not None and isinstance(out, si.TensorStructInfo) and out.vdevice is None:
            out = replace(out, vdevice=_vdevice(call))
        new = self.emitter.call_te(lambda *a: rule(call, *a), args, {}, base, key, out)
        if kind is not None:
            self._mark_target(new, kind)
        return replace(new, span=call.span)

    def _mark_target(self, new: rx.Call, kind: str) -> None:
        from ...target import Target

        gv = new.args[0].gvar  # type: ignore[attr-defined]
        func = self.emitter.funcs[gv]
        if "target" not in dict(func.attrs):
            self.emitter.funcs[gv] = replace(func, attrs=(("target", Target(kind)), *func.attrs))


class BuiltinLegalize:
    """A built-in rule seen as TVM's `FLegalize(bb, call)`: what `Op.get_attr("FLegalize")`
    gives, so tests can reset the attribute and register it back."""

    def __init__(self, op_name: str) -> None:
        self.builtin_op = op_name

    def __call__(self, bb: Any, call: rx.Call) -> rx.Expr:
        return _Legalizer(bb._emitter, {self.builtin_op: LEGALIZE[self.builtin_op]}
                          ).visit_Call(call)


register_attr_default("FLegalize", lambda name: BuiltinLegalize(name) if name in LEGALIZE
                      else None)


# Binary elementwise operators: a 0-d constant operand is written into the kernel as a
# literal (`x + T.float32(1)`), as TVM's legalization does, rather than passed as a buffer.
SCALAR_OPERAND_OPS = frozenset(f"relax.{n}" for n in (
    *BINARY, *COMPARE, *LOGICAL, "full", "full_like", "quantize", "dequantize"))
# `full_like(x, v)` and kin read only x's shape (collapse_sum_like only its target's): TVM's
# kernel takes no buffer for that argument. Op name -> the argument's index.
SHAPE_ONLY = {"relax.full_like": 0, "relax.zeros_like": 0, "relax.ones_like": 0,
              "relax.collapse_sum_like": 1, "relax.shape_to_tensor": 0}


def _says_the_same(a: si.StructInfo, b: si.StructInfo) -> bool:
    """Whether two struct infos describe the same values (dims may be written differently:
    `h - kh + 1` and `h + 1 - kh`)."""
    if isinstance(a, si.TensorStructInfo) and isinstance(b, si.TensorStructInfo):
        if (a.dtype, a.ndim, a.vdevice) != (b.dtype, b.ndim, b.vdevice) or \
                (a.shape is None) != (b.shape is None):
            return False
        prove = Analyzer().can_prove_equal
        return a.shape is None or all(prove(x, y) for x, y in zip(a.shape, b.shape))
    return is_base_of(a, b) and is_base_of(b, a)


def _vdevice(call: rx.Call) -> Any:
    """The virtual device the call's result lives on, if any."""
    # NOTE: some struct-info rules drop the vdevice; the arguments' is the call's then
    found = [getattr(e.struct_info, "vdevice", None) for e in (call, *call.args)]
    return next((v for v in found if v is not None), None)


def _device_kind(call: rx.Call) -> str | None:
    """The target kind of that virtual device (`"llvm"`), if any."""
    vdev = _vdevice(call)
    if vdev is None:
        return None
    target = getattr(vdev, "target", vdev)
    return str(getattr(target, "kind", target)).split(":")[0].split(" ")[0] or None


def _check_dtypes_known(call: rx.Call) -> None:
    """TVM refuses to leave a matmul of unknown dtype for later: its kernel needs the dtype."""
    if call.op.name != "relax.matmul":  # type: ignore[attr-defined]
        return
    dtypes = [getattr(a.struct_info, "dtype", None) for a in call.args]
    if not all(dtypes):
        raise AssertionError(f"To legalize R.matmul, the dtype of both arguments must be "
                             f"known, got {dtypes[0] or 'unknown'} and {dtypes[1] or 'unknown'}")


def _scalar_constant(e: rx.Expr) -> tx.PrimExpr | None:
    s = e.struct_info
    if not (isinstance(e, rx.Constant) and isinstance(s, si.TensorStructInfo)
            and s.shape is not None and len(s.shape) == 0):
        return None
    return tx.const(np.asarray(e.data.numpy()).item(), s.dtype)


def _inline_scalar_constants(args: list[rx.Expr]) -> list[Any]:
    scalars = [_scalar_constant(a) for a in args]
    if all(c is not None for c in scalars):  # keep one tensor operand: its shape is the output's
        scalars[0] = None
    return [a if c is None else c for a, c in zip(args, scalars)]


def _arg_key(a: Any) -> Any:
    return ("C", a.dtype, a.value) if isinstance(a, tx.PrimExpr) else sinfo_key(a)


def _known(e: rx.Expr) -> bool:
    return _known_sinfo(e.struct_info)


def _known_sinfo(s: Any) -> bool:
    if isinstance(s, si.TensorStructInfo):
        return s.shape is not None and bool(s.dtype)
    if isinstance(s, si.TupleStructInfo):
        return all(_known_sinfo(f) for f in s.fields)
    return s is not None


def _same_items(new: list[Any], old: tuple[Any, ...]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def legalize_module(mod: IRModule, custom: dict[str, Callable[..., Any]] | None = None,
                    only: frozenset[str] | None = None) -> IRModule:
    """`mod` with operator calls lowered to TIR; `only` limits it to those operators."""
    funcs = dict(mod.functions)
    emitter = TEEmitter(funcs)
    rules, bb_rules = LEGALIZE, {**BB_LEGALIZE, **(custom or {})}
    if only is not None:
        rules = {k: v for k, v in rules.items() if k in only}
        bb_rules = {k: v for k, v in bb_rules.items() if k in only}
    for gv, f in list(mod.functions.items()):
        if isinstance(f, rx.Function):
            funcs[gv] = _Legalizer(emitter, rules, bb_rules).visit(f)
    return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))


def LegalizeOps(customize_legalize_map: dict[str, Any] | None = None,  # noqa: N802
                enable_warning: bool = False) -> Pass:
    """TVM's `relax.transform.LegalizeOps()`; custom rules are TVM's `f(bb, call)`."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return legalize_module(mod, customize_legalize_map)
    return Pass(run, "LegalizeOps")
