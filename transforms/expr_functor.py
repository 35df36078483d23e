"""User-written passes as TVM spells them: `relax.PyExprMutator`, `relax.PyExprVisitor`,
`relax.expr_functor.mutator` / `visitor`, and `relax.transform.function_pass`."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.module import IRModule
from .block_builder import BlockBuilder
from .pass_infra import Pass, PassContext


class _TVMNames:
    """TVM's method names over our dispatch: `visit_expr(e)`, and `visit_call_(call)`, whose
    default (reachable from overrides through `super()`) is the base class's generic visit:
    visiting the parts for a visitor, rebuilding the call from them for a mutator."""

    def visit_expr(self, expr: Any) -> Any:
        return self.visit(expr)  # type: ignore[attr-defined]

    def visit_Call(self, call: rx.Call) -> Any:  # noqa: N802
        return self.visit_call_(call)

    def visit_call_(self, call: rx.Call) -> Any:
        return self.generic_visit(call)  # type: ignore[attr-defined]


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

    def visit_Var(self, var: rx.Var) -> Any:
        hook = getattr(type(self), "visit_var_", None)
        return hook(self, var) if hook is not None else var

    visit_DataflowVar = visit_Var

    def lookup_binding(self, var: rx.Var) -> Any:
        return getattr(self, "_bindings", {}).get(var)

    def visit_binding(self, binding: Any) -> Any:
        self.__dict__.setdefault("_bindings", {})[binding.var] = binding.value
        return super().visit_binding(binding)

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
        return Pass(run, pname, opt_level)

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
