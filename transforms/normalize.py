"""Normalize (TVM's pass): a relax function in A-normal form, as the parser would build it.

- Arguments of calls, tuple items and `If` conditions are leaves (variables, constants, shapes,
  operators, ...); anything else is bound to a new variable first.
- A sequence's result, and each `If` branch's, is a leaf or a tuple (else it is bound too);
  every branch is a sequence.
- A sequence nested in a binding is flattened into the enclosing one, its blocks kept.
- Adjacent blocks of the same kind merge; struct info missing on calls and variables is
  inferred.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.op import with_inferred_struct_info
from ..ir.type_analysis import is_base_of, type_lca

_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm, rx.Op,
           rx.GlobalVarRef, rx.ExternFunc, rx.Function)


def _is_leaf(e: Any) -> bool:
    if isinstance(e, rx.Tuple):
        return all(_is_leaf(f) for f in e.fields)
    return isinstance(e, _LEAVES)


class _Normalizer:
    def __init__(self) -> None:
        self.blocks: list[tuple[bool, list[Any]]] = []  # (dataflow?, bindings)
        self.count = 0

    def emit(self, binding: Any, dataflow: bool) -> None:
        if self.blocks and self.blocks[-1][0] == dataflow:
            self.blocks[-1][1].append(binding)
        else:
            self.blocks.append((dataflow, [binding]))

    def bind(self, value: rx.Expr, dataflow: bool) -> rx.Var:
        self.count += 1
        var = (rx.DataflowVar if dataflow else rx.Var)(f"lv{self.count}", value.struct_info)
        self.emit(rx.VarBinding(var, value), dataflow)
        return var

    def seq(self, seq: rx.Expr, bind_result: bool) -> rx.SeqExpr:
        """A new sequence of its own blocks (a function body or an If branch)."""
        saved, self.blocks = self.blocks, []
        try:
            body = self.flatten(seq if isinstance(seq, rx.SeqExpr) else rx.SeqExpr((), seq))
            if bind_result and not _is_leaf(body):
                body = self.bind(body, False)
            blocks = tuple((rx.DataflowBlock if df else rx.BindingBlock)(tuple(bs))
                           for df, bs in self.blocks)
            span = seq.span if isinstance(seq, rx.SeqExpr) else None
            return rx.SeqExpr(blocks, body, span)
        finally:
            self.blocks = saved

    def flatten(self, seq: rx.SeqExpr) -> rx.Expr:
        """Emit the sequence's bindings into the current one; return its result."""
        for blk in seq.blocks:
            dataflow = isinstance(blk, rx.DataflowBlock)
            for b in blk.bindings:
                self.binding(b, dataflow)
        return self.expr(seq.body, False)

    def binding(self, b: Any, dataflow: bool) -> None:
        value = self.expr(b.value, dataflow)
        var = b.var
        if var.struct_info is None and value.struct_info is not None:
            var = type(var)(var.name_hint, value.struct_info, var.span)
            self.renamed[b.var] = var
        self.emit(replace(b, var=var, value=value), dataflow)

    def expr(self, e: Any, dataflow: bool) -> Any:
        if isinstance(e, rx.Var):
            return self.renamed.get(e, e)
        if isinstance(e, rx.SeqExpr):
            return self.flatten(e)
        if isinstance(e, rx.Call):
            call = replace(e, args=tuple(self.leaf(a, dataflow) for a in e.args))
            if call.struct_info is None and isinstance(call.op, rx.Op):
                call = with_inferred_struct_info(call)
            return call
        if isinstance(e, rx.Tuple):
            fields = tuple(self.leaf(f, dataflow) for f in e.fields)
            return replace(e, fields=fields, struct_info=e.struct_info or si.TupleStructInfo(
                tuple(f.struct_info or si.ObjectStructInfo() for f in fields)))
        if isinstance(e, rx.TupleGetItem):
            tup = self.leaf(e.tuple_value, dataflow)
            sinfo = e.struct_info
            if sinfo is None and isinstance(tup.struct_info, si.TupleStructInfo):
                sinfo = tup.struct_info.fields[e.index]
            return replace(e, tuple_value=tup, struct_info=sinfo)
        if isinstance(e, rx.If):
            return self.if_(e, dataflow)
        return e

    def if_(self, e: rx.If, dataflow: bool) -> rx.If:
        cond = self.leaf(e.cond, dataflow)
        then, other = self.seq(e.true_branch, True), self.seq(e.false_branch, True)
        sinfo = e.struct_info
        if sinfo is None and then.body.struct_info is not None and \
                other.body.struct_info is not None:
            sinfo = type_lca(then.body.struct_info, other.body.struct_info)
        return replace(e, cond=cond, true_branch=then, false_branch=other, struct_info=sinfo)

    def leaf(self, e: Any, dataflow: bool) -> Any:
        e = self.expr(e, dataflow)
        return e if _is_leaf(e) else self.bind(e, dataflow)

    def function(self, func: rx.Function) -> rx.Function:
        self.renamed: dict[rx.Var, rx.Var] = {}
        body = self.seq(func.body, True)
        ret, got = func.ret_struct_info, body.body.struct_info
        if ret is not None and got is not None and ret != got and is_base_of(ret, got):
            ret = got  # as TVM's normalizer: the body refines a coarser return annotation
        return replace(func, body=body, ret_struct_info=ret)


def normalize(func: rx.Function) -> rx.Function:
    """`func` in A-normal form (see the module docstring)."""
    return _Normalizer().function(func)
