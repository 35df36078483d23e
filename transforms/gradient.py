"""`relax.transform.Gradient`: reverse-mode automatic differentiation of a relax function.

`Gradient("main", require_grads=None, target_index=0)` adds `main_adjoint` to the module: the
bindings of `main` (on fresh variables), then the adjoint of every value, from the target (a
float scalar the function returns) back to the inputs, and it returns
`(original return value, (adjoint of each required variable, ...))`. As in TVM, the function
must be one dataflow block; adjoints of calls come from the rules of gradient_rules.py, those
of tuples, tuple items and assignments are built here. Each adjoint is emitted as it is
updated (`x_adjoint`, then `x_adjoint1 = x_adjoint + ...`); what ends up unused is removed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule
from ..ir.op import get_op, op_attr
from ..tir import expr as tx
from ..vm.registry import get_global_func
from . import gradient_rules, gradient_rules_nn  # noqa: F401 (registers the rules)
from .bind_symbolic import _dims_of, _Substitute
from .function_copy import FunctionCopier
from .gradient_checkpoint import Recompute, strip_markers
from .gradient_emit import (
    Emitter, add_in_tuple, get_item, join, leaves, nested_zeros, tuple_aware_add,
)
from .gradient_simplify import simplify_gradient
from .legalize.emit import TEEmitter
from .pass_infra import Pass
from .simple_passes import remove_unused

TE_GRAD_PREFIX = "tvm.relax.te_grad._register."  # TVM's registry names of te gradients


class GradientError(RuntimeError):
    """A function the Gradient pass cannot differentiate (TVM raises an InternalError)."""


def _is_float_tensor(sinfo: Any) -> bool:
    return isinstance(sinfo, si.TensorStructInfo) and sinfo.dtype.startswith(("float",
                                                                              "bfloat"))


def _is_float_nested(sinfo: Any) -> bool:
    if isinstance(sinfo, si.TupleStructInfo):
        return all(_is_float_nested(f) for f in sinfo.fields)
    return _is_float_tensor(sinfo)


class GradContext:
    """What a gradient rule may emit through (TVM hands its rules the BlockBuilder)."""

    def __init__(self, em: Emitter, funcs: dict[GlobalVar, Any]) -> None:
        self.em = em
        self.te = TEEmitter(funcs, dedup=True)

    def emit(self, expr: rx.Expr, name_hint: str = "") -> rx.Var:
        return self.em.emit(expr, name_hint or "lv")

    def normalize(self, expr: rx.Expr) -> rx.Expr:
        return self.em.normalize(expr)

    def emit_te(self, func: Any, *args: Any, primfunc_name_hint: str | None = None,
                **kwargs: Any) -> rx.Var:
        name = primfunc_name_hint or getattr(func, "__name__", "te_func")
        return self.emit(self.te.call_te(func, list(args), kwargs, name))


class _Backward:
    """Walks the forward bindings backwards, emitting adjoints (`<var>_adjoint`)."""

    def __init__(self, ctx: GradContext, recompute: Recompute) -> None:
        self.ctx = ctx
        self.em = ctx.em
        self.recompute = recompute
        self.adjoint: dict[rx.Var, rx.Var] = {}

    def run(self, forward: list[rx.Binding], target: rx.Var, require: list[rx.Var],
            ret: rx.Expr) -> rx.Expr:
        sinfo = target.struct_info
        self.update(target, op_attr("relax.ones", "make")(sinfo.shape, sinfo.dtype))
        for b in reversed(forward):
            self.visit(b)
        outs = []
        for v in require:
            if v not in self.adjoint:
                self.update(v, nested_zeros(v.struct_info))
            outs.append(self.em.emit(self.adjoint[v], v.name_hint + "_adjoint_out", True))
        return rx.Tuple((ret, rx.Tuple(tuple(outs))))

    def visit(self, b: rx.Binding) -> None:
        if not isinstance(b, rx.VarBinding):
            raise GradientError("Gradient supports variable bindings only, not match_cast")
        if b.var not in self.adjoint:
            return  # the target does not depend on it
        value, adjoint = b.value, self.adjoint[b.var]
        if isinstance(value, rx.Call):
            self._call(b.var, value, adjoint)
        elif isinstance(value, (rx.Tuple, rx.Var)):
            self.update(value, adjoint)
        elif isinstance(value, rx.TupleGetItem):
            self._get_item(value, adjoint)
        elif not isinstance(value, rx.Constant):
            raise GradientError(f"Gradient does not support a binding of "
                                f"{type(value).__name__}: {b.var.name_hint}")

    def _call(self, var: rx.Var, call: rx.Call, adjoint: rx.Var) -> None:
        if not isinstance(call.op, rx.Op):
            return
        name = call.op.name
        if name == "relax.call_tir":
            raise GradientError("Gradient: a call_tir has no gradient; write it as "
                                "R.call_tir_with_grad with a registered te gradient")
        cp_var, cp_call = self.recompute.binding(var, call)
        if name == "relax.call_tir_with_grad":
            self._call_tir_with_grad(cp_var, cp_call, adjoint)
            return
        rule = gradient_rules.gradient_rule(name)
        if rule is None:
            raise GradientError(f"Gradient: no gradient is registered for {name}")
        partials = rule(cp_var, cp_call, adjoint, self.ctx)
        if len(partials) != len(call.args):
            raise GradientError(f"Gradient: the rule of {name} gives {len(partials)} "
                                f"partials for {len(call.args)} arguments")
        for arg, partial in zip(call.args, partials):
            if not _is_no_grad(partial):
                self.update(arg, partial)

    def _call_tir_with_grad(self, var: rx.Var, call: rx.Call, adjoint: rx.Var) -> None:
        grad_name = call.attr("te_grad_name")
        handler = get_global_func(TE_GRAD_PREFIX + grad_name, allow_missing=True)
        if handler is None:
            raise GradientError(f"Gradient: no te gradient is registered as {grad_name!r} "
                                f"(relax.training.utils.register_te_gradient)")
        partials = handler(var, call, adjoint, self.ctx)
        inputs = call.args[1].fields  # type: ignore[union-attr]
        if isinstance(partials.struct_info, si.TupleStructInfo):
            for i, arg in enumerate(inputs):
                self.update(arg, get_item(partials, i))
        else:
            self.update(inputs[0], partials)

    def _get_item(self, item: rx.TupleGetItem, adjoint: rx.Expr) -> None:
        tup = item.tuple_value
        if not isinstance(tup, rx.Var) or not isinstance(tup.struct_info, si.TupleStructInfo):
            raise GradientError("Gradient: a tuple item must be taken of a tuple variable")
        if tup in self.adjoint:
            new = add_in_tuple(self.adjoint[tup], item.index, adjoint)
        else:
            zeros = nested_zeros(tup.struct_info)
            assert isinstance(zeros, rx.Tuple)
            fields = list(zeros.fields)
            fields[item.index] = adjoint
            new = rx.Tuple(tuple(fields))
        self._emit_adjoint(tup, new)

    def update(self, target: rx.Expr, partial: rx.Expr) -> None:
        """Add `partial` to the adjoint of `target` (a variable, a constant or a tuple)."""
        self._decompose(target, leaves(self.em.normalize(partial)))

    def _decompose(self, target: rx.Expr, part: Any) -> None:
        if isinstance(target, rx.Tuple):
            for i, f in enumerate(target.fields):
                self._decompose(f, part[i] if isinstance(part, list) else get_item(part, i))
        elif isinstance(target, rx.Var):
            new = self.em.normalize(join(part))
            if target in self.adjoint:
                new = tuple_aware_add(self.adjoint[target], new)
            self._emit_adjoint(target, new)
        elif isinstance(target, rx.TupleGetItem):
            # NOTE: TVM's normalizer binds an item before a call uses it; ours may not
            self._get_item(target, self.em.normalize(join(part)))
        elif not isinstance(target, (rx.Constant, rx.ShapeExpr, rx.PrimValue)):
            raise GradientError(f"Gradient: cannot take the adjoint of {type(target).__name__}")

    def _emit_adjoint(self, var: rx.Var, value: rx.Expr) -> None:
        self.adjoint[var] = self.em.emit(value, var.name_hint + "_adjoint")


def _is_no_grad(e: rx.Expr) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and \
        e.op.name == "relax.grad.no_grad"


def _target(ret: rx.Expr, index: int) -> rx.Var:
    if isinstance(ret, rx.Var):
        if index != 0:
            raise GradientError(f"Gradient: the function returns one value, so target_index "
                                f"must be 0, got {index}")
        target = ret
    elif isinstance(ret, rx.Tuple):
        if not 0 <= index < len(ret.fields):
            raise GradientError(f"Gradient: target_index {index} is out of the "
                                f"{len(ret.fields)} values the function returns")
        target = ret.fields[index]
        if not isinstance(target, rx.Var):
            raise GradientError(f"Gradient: the target must be a variable, got {target}")
    else:
        raise GradientError("Gradient: the function must return a variable or a tuple")
    sinfo = target.struct_info
    if not (_is_float_tensor(sinfo) and sinfo.shape is not None and len(sinfo.shape) == 0):
        raise GradientError(f"Gradient: the target {target.name_hint} must be a float scalar "
                            f"(a 0-d tensor), got {sinfo}")
    return target


def _fresh_dims(new: rx.Function, copier: FunctionCopier) -> rx.Function:
    """`new` with its own symbolic dims: each function defines the dims it uses."""
    dims = [v for same_name in _dims_of(new).values() for v in same_name]
    if not dims:
        return new
    sub = _Substitute({v: tx.Var(v.name, v.dtype) for v in dims})
    out = sub(new)
    copier.vars = {old: sub(v) for old, v in copier.vars.items()}  # the same new objects
    return out


def _required(require: Any, copier: FunctionCopier, new: rx.Function, name: str) -> list[rx.Var]:
    if require is None:
        return list(new.params)
    wanted = list(require) if isinstance(require, (list, tuple)) else [require]
    out: list[rx.Var] = []
    for v in wanted:
        if v not in copier.vars:
            raise GradientError(f"Gradient: there is no variable {v.name_hint} in {name}")
        if copier.vars[v] in out:
            raise GradientError(f"Gradient: {v.name_hint} is required twice")
        if not _is_float_nested(v.struct_info):
            raise GradientError(f"Gradient: only float tensors (or tuples of them) take "
                                f"gradients, but {v.name_hint} is {v.struct_info}")
        out.append(copier.vars[v])
    return out


def differentiate(mod: IRModule, func_name: str, require_grads: Any = None,
                  target_index: int = 0) -> IRModule:
    if func_name not in mod:
        raise ValueError(f"Gradient: the module has no function {func_name!r}")
    func = mod[func_name]
    if not isinstance(func, rx.Function):
        raise GradientError(f"Gradient: {func_name} is not a relax function")
    copier = FunctionCopier()
    new = _fresh_dims(copier.copy(func), copier)
    seq = new.body
    if len(seq.blocks) != 1 or not isinstance(seq.blocks[0], rx.DataflowBlock):
        raise GradientError("Gradient: the function must be one dataflow block")
    require = _required(require_grads, copier, new, func_name)
    forward, ret, cps = strip_markers(seq.blocks[0], new.params, seq.body)
    require = [cps.marked.get(v, v) for v in require]
    target = _target(ret, target_index)
    em = Emitter(forward)
    recompute = Recompute(em, new.params, forward, cps.kept)
    funcs = dict(mod.functions)
    body = _Backward(GradContext(em, funcs), recompute).run(forward, target, require, ret)
    adjoint = rx.Function(new.params, rx.SeqExpr((rx.DataflowBlock(tuple(em.bindings)),), body),
                          body.struct_info, new.is_pure, new.attrs)
    adjoint = simplify_gradient(remove_unused(_as_call_tir(adjoint)))
    for gv, f in funcs.items():  # the kernels of te gradients
        if gv not in mod.functions:
            mod = mod.with_function(gv, f)
    name = func_name + "_adjoint"
    return mod.with_function(name, adjoint.with_attr("global_symbol", name))


class _AsCallTIR(ExprMutator):
    def visit_Call(self, c: rx.Call) -> rx.Expr:  # noqa: N802
        c = self.generic_visit(c)
        if isinstance(c.op, rx.Op) and c.op.name == "relax.call_tir_with_grad":
            return replace(c, op=get_op("relax.call_tir"), attrs=())
        return c


def _as_call_tir(func: rx.Function) -> rx.Function:
    """call_tir_with_grad is call_tir once differentiated."""
    return _AsCallTIR().visit(func)


def Gradient(func_name: str, require_grads: Any = None,  # noqa: N802 (TVM's name)
             target_index: int = 0) -> Pass:
    """Add `<func_name>_adjoint`, returning the value and the gradients of `func_name`."""
    return Pass(lambda mod, ctx: differentiate(mod, func_name, require_grads, target_index),
                "Gradient")
