"""`Function.inline_functions`: calls of the given functions replaced by their bodies.

Each inlined copy gets fresh variables and the caller's symbolic dims (its parameters' dims
bound to the arguments'); calls inside inlined bodies are inlined in turn. A callee's
non-dataflow bindings inlined into a dataflow block split that block, and a dataflow variable
then used outside its block becomes an ordinary one. Recursive functions cannot be inlined.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir.expr import (
    BindingBlock, Call, DataflowBlock, DataflowVar, Expr, Function, GlobalVarRef, If, SeqExpr,
    Var,
)
from ..ir.functor import ExprMutator, substitute_vars, var_use_counts
from ..ir.module import GlobalVar
from ..ir.struct_info import TensorStructInfo
from ..tir import expr as tx
from .bind_symbolic import _Substitute

# a run of bindings that will form one block: (is_dataflow, bindings)
Segment = tuple[bool, list[Any]]


def inline_functions(func: Function, function_map: dict[Any, Function]) -> Function:
    """`func` with every call of a function in `function_map` (keys: names or GlobalVars)
    replaced by that function's body."""
    callees = _by_name(function_map)
    _refuse_recursion(callees)
    body = _Inliner(callees).seq(func.body)
    if body is func.body:
        return func
    return replace(func, body=_promote_escaping(body))


def _by_name(function_map: dict[Any, Function]) -> dict[str, Function]:
    out: dict[str, Function] = {}
    for key, f in function_map.items():
        name = key.name_hint if isinstance(key, GlobalVar) else str(key)
        if name in out:
            raise ValueError(f"inline_functions: the name '{name}' is given twice (as a string "
                             f"and as a GlobalVar, or as two GlobalVars); each function to "
                             f"inline must be named once")
        if not isinstance(f, Function):
            raise TypeError(f"inline_functions: '{name}' must map to a relax Function, got "
                            f"{type(f).__name__}")
        out[name] = f
    return out


def _callee_names(f: Function) -> set[str]:
    found: set[str] = set()

    class _Calls(ExprMutator):
        def visit_GlobalVarRef(self, ref: GlobalVarRef) -> Expr:
            found.add(ref.gvar.name_hint)
            return ref

    _Calls().visit(f)
    return found


def _refuse_recursion(callees: dict[str, Function]) -> None:
    graph = {name: _callee_names(f) & set(callees) for name, f in callees.items()}
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            if name == start:
                raise ValueError(f"inline_functions: '{start}' calls itself (directly or "
                                 f"through the other functions given), so it cannot be inlined")
            if name not in seen:
                seen.add(name)
                todo.extend(graph[name])


class _Inliner:
    def __init__(self, callees: dict[str, Function]) -> None:
        self.callees = callees

    def seq(self, seq: SeqExpr) -> SeqExpr:
        segments, renamed = self.segments(seq.blocks)
        body = self.nested(substitute_vars(seq.body, renamed) if renamed else seq.body)
        blocks = tuple((DataflowBlock if df else BindingBlock)(tuple(bs))
                       for df, bs in segments if bs)
        if body is seq.body and len(blocks) == len(seq.blocks) and \
                all(a.bindings == b.bindings for a, b in zip(blocks, seq.blocks)):
            return seq
        return replace(seq, blocks=blocks, body=body)

    def segments(self, blocks: tuple[Any, ...]) -> tuple[list[Segment], dict[Var, Expr]]:
        out: list[Segment] = []
        renamed: dict[Var, Expr] = {}
        for block in blocks:
            df = isinstance(block, DataflowBlock)
            for b in block.bindings:
                value = substitute_vars(b.value, renamed) if renamed else b.value
                callee = self.callee_of(value)
                if callee is None:
                    _emit(out, df, replace(b, value=self.nested(value)))
                    continue
                inner, result = self.expand(callee, value.args, df)
                for seg_df, bindings in inner:
                    for x in bindings:
                        _emit(out, seg_df and df, x)
                last = out[-1][1][-1] if out and out[-1][1] else None
                if last is not None and last.var is result and type(b) is type(last):
                    # the callee's last binding takes the caller's variable (an ordinary one
                    # when that binding is not in a dataflow block)
                    var = b.var
                    if isinstance(var, DataflowVar) and not out[-1][0]:
                        var = renamed[b.var] = Var(var.name_hint, var.struct_info)
                    out[-1][1][-1] = replace(last, var=var)
                else:
                    _emit(out, df, replace(b, value=result))
        return out, renamed

    def callee_of(self, value: Expr) -> Function | None:
        if isinstance(value, Call) and isinstance(value.op, GlobalVarRef):
            return self.callees.get(value.op.gvar.name_hint)
        return None

    def nested(self, value: Expr) -> Expr:
        if isinstance(value, If):
            then, other = self.seq(value.true_branch), self.seq(value.false_branch)
            if then is not value.true_branch or other is not value.false_branch:
                return replace(value, true_branch=_promote_escaping(then),
                               false_branch=_promote_escaping(other))
        return value

    def expand(self, callee: Function, args: tuple[Expr, ...], dataflow: bool
               ) -> tuple[list[Segment], Expr]:
        """The callee's bindings for these arguments (fresh variables, the caller's dims,
        its own calls inlined) and the expression of its result."""
        dims = param_dims(callee.params, args)
        if dims:
            callee = _Substitute(dims)(callee)
        mapping: dict[Var, Expr] = dict(zip(callee.params, args))
        copied: list[Segment] = []
        for block in callee.body.blocks:
            df = isinstance(block, DataflowBlock) and dataflow
            bindings = []
            for b in block.bindings:
                var = (DataflowVar if df else Var)(b.var.name_hint, b.var.struct_info)
                bindings.append(replace(b, var=var, value=substitute_vars(b.value, mapping)))
                mapping[b.var] = var
            copied.append((df, bindings))
        result = substitute_vars(callee.body.body, mapping)
        segments, renamed = self.segments(tuple(
            (DataflowBlock if df else BindingBlock)(tuple(bs)) for df, bs in copied))
        return segments, substitute_vars(result, renamed) if renamed else result


def _emit(out: list[Segment], df: bool, binding: Any) -> None:
    if not out or out[-1][0] != df:
        out.append((df, []))
    out[-1][1].append(binding)


def param_dims(params: Any, args: Any) -> dict[tx.Var, Any]:
    """The symbolic dims of a function's tensor parameters, bound to its arguments' dims
    (first occurrence wins): what inlining or instantiating the function substitutes."""
    dims: dict[tx.Var, Any] = {}
    for p, a in zip(params, args):
        want, have = p.struct_info, a.struct_info
        if not (isinstance(want, TensorStructInfo) and isinstance(have, TensorStructInfo)):
            continue
        if not isinstance(want.shape, tuple) or not isinstance(have.shape, tuple):
            continue
        for w, h in zip(want.shape, have.shape):
            if isinstance(w, tx.Var) and w not in dims:
                dims[w] = tx.IntImm("int64", h) if isinstance(h, int) else h
    return dims


def _promote_escaping(seq: SeqExpr) -> SeqExpr:
    """Dataflow variables used outside the block that binds them become ordinary ones."""
    promote: dict[Var, Var] = {}
    for i, block in enumerate(seq.blocks):
        if not isinstance(block, DataflowBlock):
            continue
        later = var_use_counts(*[x.value for blk in seq.blocks[i + 1:] for x in blk.bindings],
                               seq.body)
        for b in block.bindings:
            if isinstance(b.var, DataflowVar) and later.get(b.var):
                promote[b.var] = Var(b.var.name_hint, b.var.struct_info)
    if not promote:
        return seq
    blocks = tuple(replace(blk, bindings=tuple(
        replace(b, var=promote.get(b.var, b.var), value=substitute_vars(b.value, promote))
        for b in blk.bindings)) for blk in seq.blocks)
    return replace(seq, blocks=blocks, body=substitute_vars(seq.body, promote))
