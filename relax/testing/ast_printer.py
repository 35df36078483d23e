"""`tvm.relax.testing.ast_printer`: a relax expression as a tree of its nodes and fields
(`Var(name="x")`, `Call(op=Op(name="relax.add"), args=[...])`), in TVM 0.27's format and
names (struct info prints as its type: `TensorType`, `ShapeType`, `AnyType`, ...). For
teaching and debugging; `dump_ast(expr)` is the entry point."""

from __future__ import annotations

from typing import Any, Iterable

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.module import GlobalVar
from ...tir import expr as tx


def _quoted(text: Any) -> str:
    return f'"{text}"'


class ASTPrinter:
    """Renders nodes as `Name(field=value, ...)`: one field per line once a node has several
    (or a field spans lines), nested fields indented by `indent_str`."""

    def __init__(self, indent_str: str = "    ", include_ty_annotations: bool = True,
                 include_call_attrs: bool = True) -> None:
        self.indent_str = indent_str
        self.include_ty_annotations = include_ty_annotations
        self.include_call_attrs = include_call_attrs

    # -- layout ---------------------------------------------------------------------------------

    def indent(self, text: str) -> str:
        return "\n".join(self.indent_str + line for line in text.split("\n")) if text else ""

    def build_list(self, members: Iterable[str], open_tok: str = "[", close_tok: str = "]",
                   force_newline: bool = False) -> str:
        items = list(members)
        if not items:
            return open_tok + close_tok
        if len(items) == 1 and not force_newline and "\n" not in items[0]:
            return open_tok + items[0] + close_tok
        return f"{open_tok}\n" + ",\n".join(self.indent(m) for m in items) + f"\n{close_tok}"

    def build_ast_node(self, nodename: str, force_newline: bool = False, **fields: Any) -> str:
        return self.build_list((f"{k}={v}" for k, v in fields.items()), f"{nodename}(", ")",
                               force_newline)

    def build_expr(self, node: Any, nodename: str, force_newline: bool = False,
                   **fields: Any) -> str:
        sinfo = getattr(node, "struct_info", None)
        if sinfo is not None and self.include_ty_annotations:
            fields["ty"] = self.visit_ty_(sinfo)
        return self.build_ast_node(nodename, force_newline, **fields)

    # -- expressions ----------------------------------------------------------------------------

    def visit_expr(self, expr: Any) -> str:
        if isinstance(expr, rx.BindingBlock):
            return self.visit_binding_block_(expr)
        if isinstance(expr, (rx.VarBinding, rx.MatchCast)):
            return self.visit_binding_(expr)
        if isinstance(expr, tx.PrimExpr):
            return self.visit_prim_expr_field_(expr)
        method = getattr(self, f"_{type(expr).__name__}", None)
        if method is None:
            raise ValueError(f"Invalid Relax expression {expr} ({type(expr).__name__})")
        return method(expr)

    def _Constant(self, c: rx.Constant) -> str:
        data = c.data.numpy() if hasattr(c.data, "numpy") else c.data
        return self.build_expr(c, "Constant", force_newline=getattr(data, "ndim", 0) > 0,
                               data=str(data))

    def _Tuple(self, t: rx.Tuple) -> str:
        return self.build_expr(t, "Tuple", fields=self.build_list(map(self.visit_expr,
                                                                      t.fields)))

    def _Var(self, v: rx.Var) -> str:
        return self.build_expr(v, type(v).__name__, name=_quoted(v.name_hint))

    _DataflowVar = _Var

    def _ShapeExpr(self, s: rx.ShapeExpr) -> str:
        return self.build_expr(s, "ShapeExpr", values=self.build_list(
            map(self.visit_prim_expr_field_, s.values)))

    def _ExternFunc(self, f: rx.ExternFunc) -> str:
        return self.build_ast_node("ExternFunc", global_symbol=_quoted(f.global_symbol))

    def _GlobalVarRef(self, g: rx.GlobalVarRef) -> str:
        return self.build_ast_node("GlobalVar", name_hint=_quoted(g.gvar.name_hint))

    def _GlobalVar(self, g: GlobalVar) -> str:
        return self.build_ast_node("GlobalVar", name_hint=_quoted(g.name_hint))

    def _Function(self, f: rx.Function) -> str:
        fields: dict[str, Any] = {
            "params": self.build_list(map(self.visit_expr, f.params)),
            "body": self.visit_expr(f.body),
            "ret_ty": self.visit_ty_(f.ret_struct_info or si.ObjectStructInfo()),
            "is_pure": f.is_pure,
        }
        if f.attrs:
            fields["attrs"] = self.build_list((f"{_quoted(k)}: {_quoted(v)}" for k, v in f.attrs),
                                              "{", "}")
        return self.build_expr(f, "Function", **fields)

    def _Call(self, c: rx.Call) -> str:
        fields: dict[str, Any] = {"op": self.visit_expr(c.op),
                                  "args": self.build_list(map(self.visit_expr, c.args))}
        if c.sinfo_args:
            fields["ty_args"] = self.build_list(map(self.visit_ty_, c.sinfo_args))
        if c.attrs and self.include_call_attrs:
            fields["attrs"] = self.build_list((f"{_quoted(k)}: {_attr_text(v)}"
                                               for k, v in c.attrs), "{", "}")
        return self.build_expr(c, "Call", **fields)

    def _Op(self, op: rx.Op) -> str:
        return self.build_ast_node("Op", name=_quoted(op.name))

    def _SeqExpr(self, s: rx.SeqExpr) -> str:
        return self.build_expr(s, "SeqExpr", blocks=self.build_list(
            map(self.visit_binding_block_, s.blocks)), body=self.visit_expr(s.body))

    def _If(self, e: rx.If) -> str:
        return self.build_expr(e, "If", cond=self.visit_expr(e.cond),
                               true_branch=self.visit_expr(e.true_branch),
                               false_branch=self.visit_expr(e.false_branch))

    def _StringImm(self, s: rx.StringImm) -> str:
        return self.build_expr(s, "StringImm", value=_quoted(s.value))

    def _DataTypeImm(self, d: rx.DataTypeImm) -> str:
        return self.build_expr(d, "DataTypeImm", value=d.value)

    def _PrimValue(self, p: rx.PrimValue) -> str:
        return self.build_expr(p, "PrimValue", value=self.visit_prim_expr_field_(p.value))

    def _TupleGetItem(self, t: rx.TupleGetItem) -> str:
        return self.build_expr(t, "TupleGetItem", tuple_value=self.visit_expr(t.tuple_value),
                               index=str(t.index))

    def visit_prim_expr_field_(self, e: Any) -> str:
        text = e.name if isinstance(e, tx.Var) else _prim_text(e)
        return self.build_ast_node("Expr", value=f"`{text}`")

    # -- types (struct info, by TVM 0.27's type names) ---------------------------------------

    def visit_ty_(self, s: Any) -> str:
        if isinstance(s, si.ShapeStructInfo):
            fields: dict[str, Any] = {"ndim": str(s.ndim)}
            if s.values is not None:
                fields["values"] = self.build_list(map(self.visit_prim_expr_field_, s.values))
            return self.build_ast_node("ShapeType", **fields)
        if isinstance(s, si.PrimStructInfo):
            return self.build_ast_node("PrimType", dtype=s.dtype)
        if isinstance(s, si.TensorStructInfo):
            fields = {"dtype": s.dtype}
            if s.shape is not None:  # the shape as the ShapeExpr it is in TVM
                shape = {"values": self.build_list(map(self.visit_prim_expr_field_, s.shape))}
                if self.include_ty_annotations:
                    shape["ty"] = self.visit_ty_(si.ShapeStructInfo(tuple(s.shape)))
                fields["shape"] = self.build_ast_node("ShapeExpr", **shape)
            else:
                fields["ndim"] = str(s.ndim)
            return self.build_ast_node("TensorType", **fields)
        if isinstance(s, (si.TupleStructInfo, si.FuncStructInfo)):
            return self._composite(s, self.visit_ty_)
        if isinstance(s, si.PackedFuncType):
            return self.build_ast_node("PackedFuncType")
        if isinstance(s, si.ObjectStructInfo):
            return self.build_ast_node("AnyType")
        raise ValueError(f"Invalid Relax Type {s} ({type(s).__name__})")

    def visit_type_(self, s: Any) -> str:
        """The type alone (no shape values): what TVM's `checked_type_` printed."""
        if isinstance(s, si.ShapeStructInfo):
            return self.build_ast_node("ShapeType", ndim=str(s.ndim))
        if isinstance(s, si.TensorStructInfo):
            fields = {"ndim": str(s.ndim)}
            if s.dtype:
                fields["dtype"] = s.dtype
            return self.build_ast_node("TensorType", **fields)
        if isinstance(s, (si.TupleStructInfo, si.FuncStructInfo)):
            return self._composite(s, self.visit_type_)
        return self.visit_ty_(s)

    def _composite(self, s: Any, visit: Any) -> str:
        """A tuple or function type, its parts printed by `visit`."""
        if isinstance(s, si.TupleStructInfo):
            return self.build_ast_node("TupleType", fields=self.build_list(map(visit, s.fields)))
        fields = {}
        if s.params is not None:
            fields["params"] = self.build_list(map(visit, s.params))
        fields["ret"] = visit(s.ret)
        fields["purity"] = bool(s.purity)
        return self.build_ast_node("FuncType", **fields)

    # -- bindings -------------------------------------------------------------------------------

    def visit_binding_block_(self, block: rx.BindingBlock) -> str:
        name = "DataflowBlock" if isinstance(block, rx.DataflowBlock) else "BindingBlock"
        return self.build_ast_node(name, bindings=self.build_list(
            map(self.visit_binding_, block.bindings), force_newline=True))

    def visit_binding_(self, b: Any) -> str:
        if isinstance(b, rx.MatchCast):
            return self.build_ast_node("MatchCast", var=self.visit_expr(b.var),
                                       value=self.visit_expr(b.value),
                                       ty=self.visit_ty_(b.struct_info))
        return self.build_ast_node("VarBinding", var=self.visit_expr(b.var),
                                   value=self.visit_expr(b.value))


def _prim_text(e: Any) -> str:
    """The expression as TVMScript text (`m + T.int64(1)`), without its vars' definitions."""
    from ...script.printer.tir_node_printer import print_node

    return print_node(e).split("\n")[-1]


def _attr_text(value: Any) -> str:
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, tx.IntImm):
        return str(bool(value.value)) if value.dtype == "bool" else str(value.value)
    return str(value)


def dump_ast(exp: Any, indent_str: str = "    ", include_ty_annotations: bool = True,
             include_call_attrs: bool = True) -> str:
    """`exp` (an expression, binding or block) as its tree of nodes."""
    return ASTPrinter(indent_str, include_ty_annotations, include_call_attrs).visit_expr(exp)
