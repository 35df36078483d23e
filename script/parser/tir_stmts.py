"""More statement handlers of the TIR parser: `break` / `continue` / `return`, nested
`@T.inline` functions, and local vector annotations (`acc: T.float32[4]`).
"""

from __future__ import annotations

import ast
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from .core import Parser
from .tir_parser import TIR, LocalVectorAnnotation
from .tir_root import root_alloc


@TIR.register("FunctionDef")
def visit_function_def(p: Parser, node: ast.FunctionDef) -> None:
    """`@T.inline def helper(...):` inside a prim_func body: a macro that sees the body's
    names as they are when it is called."""
    from ..tir_macro import Macro, is_macro_decorator

    decorators = [p.eval(d) for d in node.decorator_list]
    if len(decorators) != 1 or not is_macro_decorator(decorators[0]):
        p.error(node, "a nested function is not supported in tir functions; decorate it with "
                      "@T.inline or @T.macro")
    p.bind(node.name, Macro(None, node=node, source=p.source))


@TIR.register("Break")
def visit_break(p: Parser, node: ast.Break) -> ts.Stmt:
    _check_in_loop(p, node, "break")
    return ts.loop_jump("break", p.source.span(node))


@TIR.register("Continue")
def visit_continue(p: Parser, node: ast.Continue) -> ts.Stmt:
    _check_in_loop(p, node, "continue")
    return ts.loop_jump("continue", p.source.span(node))


def _check_in_loop(p: Parser, node: ast.AST, word: str) -> None:
    if not getattr(p, "loop_depth", 0):
        p.error(node, f"`{word}` outside a loop")


@TIR.register("Return")
def visit_return(p: Parser, node: ast.Return) -> ts.Stmt | None:
    if node.value is None:
        return None
    value = tx.const(p.eval(node.value))  # `return 0`: TVM's tir.ret, for host functions
    return ts.Evaluate(tx.Call(value.dtype, "tir.ret", (value,)), p.source.span(node))


def local_vector(p: Parser, name: str, ann: LocalVectorAnnotation, node: ast.AnnAssign) -> Any:
    """`acc: T.float32[4]` (TVM's local vector): a local buffer of that shape; with a value
    (`acc: T.float32[4] = 0`), every element starts at it."""
    from .. import tir as T

    with p.naming(name):
        buf = T.alloc_buffer(ann.shape, ann.dtype, scope="local")
    p.bind(name, buf)
    if node.value is None:
        return root_alloc(p, buf, p.source.span(node))
    value = tx.const(p.eval(node.value), ann.dtype)
    stores: ts.Stmt = ts.BufferStore(buf, value, ())
    loop_vars = [tx.Var(f"{name}_i{k}", "int32") for k in range(len(buf.shape))]
    if loop_vars:
        stores = ts.BufferStore(buf, value, tuple(loop_vars))
        for var, dim in reversed(list(zip(loop_vars, buf.shape))):
            stores = ts.For(var, tx.IntImm("int32", 0), tx.const(dim.value, "int32"),
                            ts.ForKind.SERIAL, stores)
    return root_alloc(p, buf, p.source.span(node), [stores]) or stores
