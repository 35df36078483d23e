"""`tvm.script.printer.doc_printer`: a Doc tree as Python source, as TVM's printer writes it.

`to_python_script(doc)` prints expressions with the fewest parentheses Python's precedence
allows (as TVM does, `a if c else b` nested in a then-branch is left bare), statements one per
line with `indent_spaces`, comments after simple statements and above compound ones, and a
`FunctionDoc`'s comment as its docstring. Given `path_to_underline`, the text of every doc whose
`source_paths` best match a path is underlined with `^` (see `doc_underline`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any

from ...ffi.access_path import AccessPath
from . import doc as d
from .doc_underline import Output, UnderlineOptions, decorate

K = d.OperationKind


class Prec(IntEnum):
    """Python's operator precedence, loosest first (the Python reference, "Operator
    precedence")."""

    LAMBDA = 1
    IF_THEN_ELSE = 2
    OR = 3
    AND = 4
    NOT = 5
    COMPARISON = 6
    BIT_OR = 7
    BIT_XOR = 8
    BIT_AND = 9
    SHIFT = 10
    ADD = 11
    MULT = 12
    UNARY = 13
    POWER = 14
    POSTFIX = 15
    ATOM = 16


UNARY_TOKENS = {K.USub: "-", K.Invert: "~", K.Not: "not "}
BINARY_TOKENS = {
    K.Add: "+", K.Sub: "-", K.Mult: "*", K.Div: "/", K.FloorDiv: "//", K.Mod: "%", K.Pow: "**",
    K.LShift: "<<", K.RShift: ">>", K.BitAnd: "&", K.BitOr: "|", K.BitXor: "^", K.Lt: "<",
    K.LtE: "<=", K.Eq: "==", K.NotEq: "!=", K.Gt: ">", K.GtE: ">=", K.And: "and", K.Or: "or",
    K.MatMul: "@",
}
OP_PREC = {
    K.USub: Prec.UNARY, K.Invert: Prec.UNARY, K.Not: Prec.NOT, K.Pow: Prec.POWER,
    K.Mult: Prec.MULT, K.Div: Prec.MULT, K.FloorDiv: Prec.MULT, K.Mod: Prec.MULT,
    K.MatMul: Prec.MULT, K.Add: Prec.ADD, K.Sub: Prec.ADD, K.LShift: Prec.SHIFT,
    K.RShift: Prec.SHIFT, K.BitAnd: Prec.BIT_AND, K.BitXor: Prec.BIT_XOR, K.BitOr: Prec.BIT_OR,
    K.Lt: Prec.COMPARISON, K.LtE: Prec.COMPARISON, K.Eq: Prec.COMPARISON,
    K.NotEq: Prec.COMPARISON, K.Gt: Prec.COMPARISON, K.GtE: Prec.COMPARISON, K.And: Prec.AND,
    K.Or: Prec.OR, K.IfThenElse: Prec.IF_THEN_ELSE,
}
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def precedence(doc: d.Doc) -> Prec:
    if isinstance(doc, d.OperationDoc):
        return OP_PREC[doc.kind]
    if isinstance(doc, (d.AttrAccessDoc, d.CallDoc, d.IndexDoc)):
        return Prec.POSTFIX
    if isinstance(doc, d.LambdaDoc):
        return Prec.LAMBDA
    return Prec.ATOM


def string_literal(value: str) -> str:
    """A double-quoted literal; bytes outside printable ASCII as `\\xHH` of their UTF-8."""
    out = []
    for ch in value:
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\x{b:02X}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def float_literal(value: float) -> str:
    """Whole numbers with one decimal, others with 17 significant digits; non-finite values as
    strings (`"inf"`), since Python has no literal for them."""
    if not math.isfinite(value):
        return f'"{value}"'
    if value == math.floor(value):
        return f"{value:.1f}"
    return f"{value:.17g}"


def literal_text(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, float):
        return float_literal(value)
    return str(value)


def comment_lines(text: str) -> list[str]:
    """The lines of a comment as C++'s getline reads them: a final newline ends the last line
    instead of starting an empty one, and an empty comment has no lines."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


class PythonDocPrinter:
    """Writes docs into an `Output`; `print_doc` dispatches to `print_<DocClass>`."""

    def __init__(self, out: Output, indent_spaces: int) -> None:
        self.out = out
        self.step = indent_spaces
        self.indent = 0

    def print_doc(self, doc: d.Doc) -> None:
        start = self.out.pos
        getattr(self, "print_" + type(doc).__name__)(doc)
        self.out.mark(start, doc.source_paths)

    # --- helpers -------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        self.out.write(text)

    def newline(self) -> None:
        self.out.newline(self.indent)

    def child(self, doc: d.Doc, parent: Prec, parens_at_equal: bool = False) -> None:
        """Prints an operand, in parentheses when it binds looser than `parent` (or as loose,
        with `parens_at_equal`)."""
        prec = precedence(doc)
        wrap = prec < parent or (parens_at_equal and prec == parent)
        self.write("(" if wrap else "")
        self.print_doc(doc)
        self.write(")" if wrap else "")

    def joined(self, docs: Sequence[d.Doc], sep: str = ", ",
               each: Callable[[Any], None] | None = None) -> None:
        for i, doc in enumerate(docs):
            if i:
                self.write(sep)
            (each or self.print_doc)(doc)

    def exempt_comment(self, writer: Callable[[], None]) -> None:
        """Writes a comment that underlining skips."""
        start = self.out.pos
        writer()
        self.out.exempt(start, self.out.pos)

    # --- expressions ---------------------------------------------------------------------------

    def print_LiteralDoc(self, doc: d.LiteralDoc) -> None:
        self.write(literal_text(doc.value))

    def print_IdDoc(self, doc: d.IdDoc) -> None:
        self.write(doc.name)

    def print_AttrAccessDoc(self, doc: d.AttrAccessDoc) -> None:
        self.child(doc.value, Prec.POSTFIX)
        self.write("." + doc.name)

    def print_IndexDoc(self, doc: d.IndexDoc) -> None:
        self.child(doc.value, Prec.POSTFIX)
        self.write("[")
        if doc.indices:
            self.joined(doc.indices)
        else:
            self.write("()")
        self.write("]")

    def print_CallDoc(self, doc: d.CallDoc) -> None:
        self.child(doc.callee, Prec.POSTFIX)
        self.write("(")
        self.joined(doc.args)
        for i, (key, value) in enumerate(zip(doc.kwargs_keys, doc.kwargs_values)):
            self.write(", " if i or doc.args else "")
            self.write(key + "=")
            self.print_doc(value)
        self.write(")")

    def print_OperationDoc(self, doc: d.OperationDoc) -> None:
        kind, ops = doc.kind, doc.operands
        if kind in UNARY_TOKENS:
            _arity(doc, 1)
            self.write(UNARY_TOKENS[kind])
            self.child(ops[0], OP_PREC[kind])
        elif kind is K.Pow:  # right-associative; its right side may be a bare unary (`x ** -y`)
            _arity(doc, 2)
            self.child(ops[0], Prec.POWER, parens_at_equal=True)
            self.write(" ** ")
            self.child(ops[1], Prec.UNARY)
        elif kind in BINARY_TOKENS:
            _arity(doc, 2)
            self.child(ops[0], OP_PREC[kind])
            self.write(f" {BINARY_TOKENS[kind]} ")
            self.child(ops[1], OP_PREC[kind], parens_at_equal=True)
        elif kind is K.IfThenElse:  # operands [cond, then, else]
            _arity(doc, 3)
            self.child(ops[1], Prec.IF_THEN_ELSE)
            self.write(" if ")
            self.child(ops[0], Prec.IF_THEN_ELSE, parens_at_equal=True)
            self.write(" else ")
            self.child(ops[2], Prec.IF_THEN_ELSE, parens_at_equal=True)
        else:
            raise ValueError(f"OperationKind {kind.name} has no Python operator")

    def print_LambdaDoc(self, doc: d.LambdaDoc) -> None:
        self.write("lambda ")
        self.joined(doc.args)
        self.write(": ")
        self.child(doc.body, Prec.LAMBDA)

    def print_TupleDoc(self, doc: d.TupleDoc) -> None:
        self.write("(")
        self.joined(doc.elements)
        self.write(",)" if len(doc.elements) == 1 else ")")

    def print_ListDoc(self, doc: d.ListDoc) -> None:
        self.write("[")
        self.joined(doc.elements)
        self.write("]")

    def print_DictDoc(self, doc: d.DictDoc) -> None:
        self.write("{")
        for i, (key, value) in enumerate(zip(doc.keys, doc.values)):
            self.write(", " if i else "")
            self.print_doc(key)
            self.write(": ")
            self.print_doc(value)
        self.write("}")

    def print_SliceDoc(self, doc: d.SliceDoc) -> None:
        if doc.start is not None:
            self.print_doc(doc.start)
        self.write(":")
        if doc.stop is not None:
            self.print_doc(doc.stop)
        if doc.step is not None:
            self.write(":")
            self.print_doc(doc.step)

    # --- statements ----------------------------------------------------------------------------

    def print_StmtBlockDoc(self, doc: d.StmtBlockDoc) -> None:
        for i, stmt in enumerate(doc.stmts):
            if i:
                self.newline()
            self.print_doc(stmt)

    def block(self, stmts: Sequence[d.StmtDoc], docstring: str | None = None) -> None:
        """An indented body; `pass` when it has no statements."""
        self.indent += self.step
        if docstring is not None:
            self.newline()
            self.exempt_comment(lambda: self.docstring(docstring))
        if not stmts:
            self.newline()
            self.write("pass")
        for stmt in stmts:
            self.newline()
            self.print_doc(stmt)
        self.indent -= self.step

    def docstring(self, text: str) -> None:
        self.write('"""')
        for line in comment_lines(text):
            if line:
                self.newline()
                self.write(line)
            else:  # NOTE: an empty line carries no indentation (and no line number)
                self.out.newline_without_indent()
        self.newline()
        self.write('"""')

    def trailing_comment(self, doc: d.StmtDoc) -> None:
        if doc.comment is None:
            return
        if "\n" in doc.comment:
            raise ValueError(f"the comment string of {type(doc).__name__} cannot have newline.")
        self.exempt_comment(lambda: self.write("  # " + doc.comment))

    def leading_comment(self, doc: d.StmtDoc) -> None:
        """The comment of a compound statement, as `#` lines above it."""
        if doc.comment is None:
            return
        lines = comment_lines(doc.comment)

        def write() -> None:
            for line in lines:
                self.write("# " + line)
                self.newline()
            if not lines:
                self.newline()

        self.exempt_comment(write)

    def unparenthesized(self, doc: d.ExprDoc, comma_for_one: bool) -> None:
        """A tuple without parentheses (`a, b = c, d`, `for a, in ...`). NOTE: as in TVM, the
        tuple's own source paths are not underlined there, only its elements'."""
        if not isinstance(doc, d.TupleDoc):
            self.print_doc(doc)
            return
        self.joined(doc.elements)
        self.write("," if comma_for_one and len(doc.elements) == 1 else "")

    def print_AssignDoc(self, doc: d.AssignDoc) -> None:
        self.unparenthesized(doc.lhs, comma_for_one=False)
        if doc.annotation is not None:
            self.write(": ")
            self.print_doc(doc.annotation)
        if doc.rhs is not None:
            self.write(" = ")
            rhs = doc.rhs
            if isinstance(rhs, d.TupleDoc) and len(rhs.elements) > 1:
                self.unparenthesized(rhs, comma_for_one=False)
            else:
                self.print_doc(rhs)
        self.trailing_comment(doc)

    def print_ExprStmtDoc(self, doc: d.ExprStmtDoc) -> None:
        self.print_doc(doc.expr)
        self.trailing_comment(doc)

    def print_AssertDoc(self, doc: d.AssertDoc) -> None:
        self.write("assert ")
        self.print_doc(doc.test)
        if doc.msg is not None:
            self.write(", ")
            self.print_doc(doc.msg)
        self.trailing_comment(doc)

    def print_ReturnDoc(self, doc: d.ReturnDoc) -> None:
        self.write("return ")
        self.print_doc(doc.value)
        self.trailing_comment(doc)

    def print_IfDoc(self, doc: d.IfDoc) -> None:
        self.leading_comment(doc)
        self.write("if ")
        self.print_doc(doc.predicate)
        self.write(":")
        self.block(doc.then_branch)
        if doc.else_branch:
            self.newline()
            self.write("else:")
            self.block(doc.else_branch)

    def print_WhileDoc(self, doc: d.WhileDoc) -> None:
        self.leading_comment(doc)
        self.write("while ")
        self.print_doc(doc.predicate)
        self.write(":")
        self.block(doc.body)

    def print_ForDoc(self, doc: d.ForDoc) -> None:
        self.leading_comment(doc)
        self.write("for ")
        self.unparenthesized(doc.lhs, comma_for_one=True)
        self.write(" in ")
        self.print_doc(doc.rhs)
        self.write(":")
        self.block(doc.body)

    def print_ScopeDoc(self, doc: d.ScopeDoc) -> None:
        self.leading_comment(doc)
        self.write("with ")
        self.print_doc(doc.rhs)
        if doc.lhs is not None:
            self.write(" as ")
            self.print_doc(doc.lhs)
        self.write(":")
        self.block(doc.body)

    def decorators(self, decorators: Sequence[d.ExprDoc]) -> None:
        for decorator in decorators:
            self.write("@")
            self.print_doc(decorator)
            self.newline()

    def print_FunctionDoc(self, doc: d.FunctionDoc) -> None:
        self.decorators(doc.decorators)
        self.write("def ")
        self.print_doc(doc.name)
        if doc.type_params:
            self.write("[")
            self.joined(doc.type_params)
            self.write("]")
        self.write("(")
        self.joined(doc.args)
        self.write(")")
        if doc.return_type is not None:
            self.write(" -> ")
            self.print_doc(doc.return_type)
        self.write(":")
        self.block(doc.body, doc.comment)
        # NOTE: a blank line follows every function (before whatever comes next)
        self.out.newline_without_indent()

    def print_ClassDoc(self, doc: d.ClassDoc) -> None:
        self.decorators(doc.decorators)
        self.write("class ")
        self.print_doc(doc.name)
        self.write(":")
        self.block(doc.body, doc.comment)

    def print_CommentDoc(self, doc: d.CommentDoc) -> None:
        lines = comment_lines(doc.comment or "")

        def write() -> None:
            for i, line in enumerate(lines):
                if i:
                    self.newline()
                self.write("# " + line)

        self.exempt_comment(write)

    def print_DocStringDoc(self, doc: d.DocStringDoc) -> None:
        if doc.comment:
            self.exempt_comment(lambda: self.docstring(doc.comment or ""))


def _arity(doc: d.OperationDoc, n: int) -> None:
    if len(doc.operands) != n:
        raise ValueError(f"OperationDoc {doc.kind.name} takes {n} operands, "
                         f"got {len(doc.operands)}")


def to_python_script(doc: d.Doc, indent_spaces: int = 4, print_line_numbers: bool = False,
                     num_context_lines: int | None = None,
                     path_to_underline: Sequence[AccessPath] | None = None,
                     render_invisible_path_info: bool = True) -> str:
    """The doc as Python source. With `path_to_underline`, the docs whose `source_paths` match
    each path best (equal, else its longest prefix) are underlined, a header names the paths,
    and `num_context_lines` (when >= 0) keeps only that many lines around underlined ones."""
    options = UnderlineOptions(list(path_to_underline or ()), print_line_numbers,
                               -1 if num_context_lines is None else num_context_lines,
                               render_invisible_path_info)
    out = Output(options.paths)
    PythonDocPrinter(out, indent_spaces).print_doc(doc)
    return decorate(out, options)


__all__ = ["to_python_script"]
