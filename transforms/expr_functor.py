"""User-written passes as TVM spells them: `relax.PyExprMutator`, `relax.PyExprVisitor`,
`relax.expr_functor.mutator` / `visitor`, and `relax.transform.function_pass`."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.op import with_inferred_struct_info
from ..ir.op_normalize import normalize_op_call
from ..ir.module import IRModule
from .block_builder import BlockBuilder
from .pass_infra import Pass, PassContext


_IR_NODES = (rx.Expr, rx.Binding, rx.BindingBlock)


class _TVMNames:
    """TVM's method names over our dispatch: `visit_expr(e)`, and `visit_call_(call)`, whose
    default (reachable from overrides through `super()`) is the base class's generic visit:
    visiting the parts for a visitor, rebuilding the call from them for a mutator."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # NOTE: `visit` is our traversal's dispatch, while TVM has no such method: a user
        # class may define `visit(self, mod)` as its own entry point. That override then
        # gets what is not IR (the module), and the traversal keeps the dispatch.
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("visit")
        if own is None or getattr(own, "_dispatch", False):
            return
        base = next(k.__dict__["visit"] for k in cls.__mro__[1:] if "visit" in k.__dict__)

        def visit(self: Any, node: Any) -> Any:
            if isinstance(node, _IR_NODES):
                return base(self, node)
            return own(self, node)

        visit._dispatch = True  # type: ignore[attr-defined]
        cls.visit = visit  # type: ignore[attr-defined]

    def visit_expr(self, expr: Any) -> Any:
        return self.visit(expr)  # type: ignore[attr-defined]

    def visit_Call(self, call: rx.Call) -> Any:  # noqa: N802
        return self.visit_call_(call)

    def visit_call_(self, call: rx.Call) -> Any:
        return self.generic_visit(call)  # type: ignore[attr-defined]

    def visit_expr_post_order(self, expr: Any) -> Any:
        """The node with its children visited (rebuilt, for a mutator), itself not rewritten:
        what an override calls first to rewrite bottom-up."""
        return self.generic_visit(expr)  # type: ignore[attr-defined]


class PyExprVisitor(_TVMNames, ExprVisitor):
    """Override `visit_call_(call)`, `visit_var_(var)`... (TVM's names) or `visit_Call`."""

    def visit_binding(self, binding: Any) -> None:
        self.visit(binding.value)


class PyExprMutator(_TVMNames, ExprMutator):
    """TVM's mutator base: `visit_call_(call)` returns the replacement; `self.builder_` is a
    BlockBuilder (for `emit_te` in rewrites); `visit_expr(e)` visits an expression."""

    def __init__(self, mod: IRModule | None = None) -> None:
        self.mod = mod
        self.builder_ = BlockBuilder(mod)

    def lookup_binding(self, var: rx.Var) -> Any:
        return getattr(self, "_bindings", {}).get(var)

    def visit_binding(self, binding: Any) -> Any:
        self.__dict__.setdefault("_bindings", {})[binding.var] = binding.value
        new = super().visit_binding(binding)
        value = getattr(new, "value", None)
        if isinstance(value, rx.Call) and isinstance(value.op, rx.Op):
            normal = normalize_op_call(value, self)  # as TVM's builder re-emits a call
            if normal is not value:
                new = replace(new, value=normal)
                value = normal
        if isinstance(value, rx.Call) and value.struct_info is None:
            # NOTE: a rewrite built `relax.Call(op, args, None, None)`; TVM's builder
            # normalizes it, so later passes see its struct info
            value = self.normalize_call(value)
            var = new.var
            if value.struct_info is not None:
                var = type(var)(var.name_hint, value.struct_info, var.span)
                self.__dict__.setdefault("_renamed", {})[new.var] = var
            new = replace(new, var=var, value=value)
        return new

    def visit_Var(self, var: rx.Var) -> Any:
        var = getattr(self, "_renamed", {}).get(var, var)
        hook = getattr(type(self), "visit_var_", None)
        return hook(self, var) if hook is not None else var

    visit_DataflowVar = visit_Var

    def normalize_call(self, call: rx.Call) -> rx.Call:
        """`call` with its struct info inferred: from the op's rule, or the callee's return."""
        if isinstance(call.op, rx.Op):
            return with_inferred_struct_info(call)
        if isinstance(call.op, rx.GlobalVarRef):
            funcs = {**(self.mod.functions if self.mod else {}), **self.builder_.get().functions}
            callee = funcs.get(call.op.gvar)
            if isinstance(callee, rx.Function):
                op = replace(call.op, struct_info=callee.struct_info)
                return replace(call, op=op, struct_info=callee.ret_struct_info)
        return call

    def get_module(self) -> IRModule:
        """The module with functions the builder gained (emit_te in rewrites) merged in."""
        base = self.mod or IRModule()
        extra = self.builder_.get()
        funcs = dict(base.functions)
        for gv, f in extra.functions.items():
            if gv not in funcs:
                funcs[gv] = f
        return IRModule(funcs, dict(base.attrs), dict(base.global_infos))


def mutator(cls: type) -> type:
    """`@relax.expr_functor.mutator` marks a PyExprMutator subclass (nothing else needed)."""
    return cls


visitor = mutator


def function_pass(pass_func: Any = None, opt_level: int = 0, name: str | None = None,
                  required: Any = (), traceable: bool = False) -> Any:
    """`@relax.transform.function_pass(opt_level=0)` on `f(func, mod, ctx)` or on a class with
    `transform_function(self, func, mod, ctx)`: applied to every graph function."""

    def make(fn: Any, pname: str) -> Pass:
        def run(mod: IRModule, ctx: PassContext) -> IRModule:
            out = mod
            for gv, f in mod.items():
                if isinstance(f, rx.Function):
                    new = fn(f, out, ctx)
                    out = out.with_function(gv, new)
            return out
        return FunctionPass(run, pname, opt_level)

    def wrap(target: Any) -> Any:
        if isinstance(target, type):
            @functools.wraps(target, updated=())
            def build(*args: Any, **kwargs: Any) -> Pass:
                inst = target(*args, **kwargs)
                return make(inst.transform_function, name or target.__name__)
            return build
        return make(target, name or target.__name__)

    return wrap(pass_func) if pass_func is not None else wrap


__all__ = ["PyExprMutator", "PyExprVisitor", "mutator", "visitor", "function_pass", "replace"]


class FunctionPass(Pass):
    """A pass applied to each relax function of a module (what `function_pass` makes)."""


class DataflowBlockPass(Pass):
    """A pass applied to each dataflow block of each relax function (`dataflowblock_pass`)."""


def dataflowblock_pass(pass_func: Any = None, opt_level: int = 0, name: str | None = None,
                       required: Any = (), traceable: bool = False) -> Any:
    """`@relax.transform.dataflowblock_pass(opt_level=0)` on `f(block, mod, ctx)` or on a
    class with `transform_dataflowblock(self, block, mod, ctx)`: applied to every dataflow
    block of every graph function."""

    def make(fn: Any, pname: str) -> Pass:
        def run(mod: IRModule, ctx: PassContext) -> IRModule:
            def blocks(gv: Any, f: Any) -> Any:
                if not isinstance(f, rx.Function):
                    return f
                new = tuple(fn(b, mod, ctx) if isinstance(b, rx.DataflowBlock) else b
                            for b in f.body.blocks)
                return replace(f, body=replace(f.body, blocks=new))
            return mod.map_functions(blocks)
        return DataflowBlockPass(run, pname, opt_level)

    def wrap(target: Any) -> Any:
        if isinstance(target, type):
            @functools.wraps(target, updated=())
            def build(*args: Any, **kwargs: Any) -> Pass:
                inst = target(*args, **kwargs)
                return make(inst.transform_dataflowblock, name or target.__name__)
            return build
        return make(target, name or target.__name__)

    return wrap if pass_func is None else wrap(pass_func)


__all__ += ["DataflowBlockPass", "FunctionPass", "dataflowblock_pass"]


_FUNCTOR_METHODS = {
    rx.Constant: "visit_constant_", rx.Tuple: "visit_tuple_", rx.DataflowVar: "visit_dataflow_var_",
    rx.Var: "visit_var_", rx.ShapeExpr: "visit_shape_expr_", rx.ExternFunc: "visit_extern_func_",
    rx.GlobalVarRef: "visit_global_var_", rx.Function: "visit_function_", rx.Call: "visit_call_",
    rx.SeqExpr: "visit_seq_expr_", rx.If: "visit_if_", rx.Op: "visit_op_",
    rx.TupleGetItem: "visit_tuple_getitem_", rx.PrimValue: "visit_prim_value_",
    rx.StringImm: "visit_string_imm_",
}


class ExprFunctor:
    """TVM's abstract visitor over relax expressions: `visit_expr(e)` calls the
    `visit_<kind>_` method for `e`'s class, which a subclass defines (unlike PyExprVisitor, no
    method has a default: an expression kind the subclass did not expect is an error)."""

    def visit_expr(self, expr: rx.Expr) -> Any:
        name = _FUNCTOR_METHODS.get(type(expr))
        if name is None:
            raise TypeError(f"ExprFunctor: {type(expr).__name__} is not a relax expression")
        method = getattr(self, name, None)
        if method is None:
            raise NotImplementedError(f"{type(self).__name__} does not define {name}, needed "
                                      f"for a {type(expr).__name__}")
        return method(expr)


__all__ += ["ExprFunctor"]
