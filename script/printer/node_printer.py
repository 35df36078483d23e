"""`node.script()` for a relax node on its own (a struct info, an expression, a binding), as
TVM 0.27 prints one: the free symbolic dims and relax variables it uses are declared first
(`x = T.int64()`, `a: R.Tensor((1, x, 3), dtype="float32")`), then the node itself.
"""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...ir import struct_info as si
from ...tir import expr as tx
from .relax_printer import RelaxPrinter
from .underline_ir import underlined_script, wants_underline


class _NodePrinter(RelaxPrinter):
    def __init__(self) -> None:
        super().__init__(None)
        self.declared: set[int] = set()
        self.show_all_ty = True  # a node alone prints every binding annotated, as TVM 0.27

    def declare_dims(self, s: Any) -> None:
        """`x = T.int64()` for each symbolic dim of struct info `s` not declared yet."""
        for v in _tir_vars(s):
            if id(v) not in self.declared:
                self.declared.add(id(v))
                self.emit(f"{self.namer.define(v, v.name)} = T.{v.dtype}()")

    def declare_vars(self, node: Any) -> None:
        for v in _relax_vars(node):
            if id(v) not in self.declared:
                self.declared.add(id(v))
                self.declare_dims(v.struct_info)
                name = self.namer.define(v, v.name_hint)
                self.emit(f"{name}: {self.sinfo(v.struct_info)}")


def _walk(node: Any, seen: set[int]) -> Any:
    """Every IR object reachable from `node` (dataclass fields, tuples), each once, in order."""
    if id(node) in seen or isinstance(node, (str, int, float, bool, type(None))):
        return
    seen.add(id(node))
    yield node
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from _walk(item, seen)
        return
    for name in getattr(node, "__dataclass_fields__", ()):
        if name != "span":
            yield from _walk(getattr(node, name, None), seen)


def _tir_vars(s: Any) -> list[tx.Var]:
    return [n for n in _walk(s, set()) if isinstance(n, tx.Var)]


def _prim_exprs(value: Any) -> list[tx.PrimExpr]:
    """The TIR expressions of an attribute value (nested tuples of them, as a kwargs map)."""
    if isinstance(value, tx.PrimExpr):
        return [value]
    if isinstance(value, tuple):
        return [e for item in value for e in _prim_exprs(item)]
    return []


def _relax_vars(node: Any) -> list[rx.Var]:
    found = [n for n in _walk(node, set()) if isinstance(n, rx.Var)]
    bound = {id(b.var) for b in _walk(node, set()) if isinstance(b, (rx.VarBinding,
                                                                      rx.MatchCast))}
    return [v for v in found if id(v) not in bound]


def print_node(node: Any, **options: Any) -> str:
    """The TVMScript of one relax struct info, expression or binding; TVM's underline options
    (`path_to_underline`, ...) as `underline_ir` reads them."""
    if wants_underline(options):
        return underlined_script(node, lambda: _node_text(node), options)
    return _node_text(node)


def _node_text(node: Any) -> str:
    p = _NodePrinter()
    if isinstance(node, si.StructInfo):
        p.declare_dims(node)
        p.emit(_type_text(p, node))
        return "\n".join(p.lines)
    if isinstance(node, rx.If):
        _bare_if(p, node)
        return "\n".join(p.lines)
    p.declare_vars(node)
    for v in _walk(node, set()):  # symbolic scalars passed as values: `t = T.int64()`
        if isinstance(v, rx.PrimValue):
            p.declare_dims(v.value)
        elif isinstance(v, rx.Call):  # and in attributes (call_tir_with_grad's te_grad_kwargs)
            for _, value in v.attrs:
                p.declare_dims(_prim_exprs(value))
    if isinstance(node, (rx.VarBinding, rx.MatchCast)):
        p.binding(node)
    elif isinstance(node, rx.BindingBlock):
        p.block(node)
    elif isinstance(node, rx.SeqExpr):
        p.emit(p.seq(node, ret=False))
    else:
        p.emit(p.value(node))
    return "\n".join(p.lines)


def _type_text(p: _NodePrinter, s: si.StructInfo) -> str:
    """TVM 0.27 prints a (non-empty) TupleType alone, and the tuples in it, as T.Tuple(...)."""
    if isinstance(s, si.TupleStructInfo) and s.fields:
        return f"T.Tuple({', '.join(_type_text(p, f) for f in s.fields)})"
    return p.sinfo(s)


def _bare_if(p: _NodePrinter, node: rx.If) -> None:
    """TVM 0.27's form: the condition's variables declared first, each branch's inside it,
    and each branch ending in its bare result."""
    p.declare_vars(node.cond)
    p.emit(f"if {p.value(node.cond)}:")
    for branch in (node.true_branch, node.false_branch):
        p.depth += 1
        p.declare_vars(branch)
        p.emit(p.seq(branch, ret=False))
        p.depth -= 1
        if branch is node.true_branch:
            p.emit("else:")


def sinfo_text(s: si.StructInfo) -> str:
    """Struct info alone, no declarations (TVM's `_relax_script()`)."""
    return _NodePrinter().sinfo(s)
