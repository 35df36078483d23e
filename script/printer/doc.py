"""`tvm.script.printer.doc`: the document tree of TVM's printer, TVMScript as Python syntax.

A Doc is a node of Python source: expressions (`IdDoc("x").attr("y").call(z)`), statements
(`AssignDoc`, `IfDoc`, `FunctionDoc`, ...) and comments. `doc_printer.to_python_script` turns one
into text, parenthesizing by operator precedence. Each doc may carry `source_paths`: the access
paths of the IR parts it renders, which the printer underlines on request.

Docs are mutable (a caller sets `comment` or `source_paths` after building) and compare by
identity, as TVM's objects do; every class has `__slots__`, so a misspelled attribute is an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum, unique
from typing import Any

from ...ffi.access_path import AccessPath


def _docs(items: Iterable[Any], kind: type, what: str) -> tuple:
    """The items as a tuple, each checked to be a `kind` doc (TVM's typed arrays refuse others)."""
    out = tuple(items)
    for i, item in enumerate(out):
        if not isinstance(item, kind):
            raise TypeError(f"{what}[{i}] must be a {kind.__name__}, not {type(item).__name__}")
    return out


def _optional(item: Any, kind: type, what: str) -> Any:
    if item is not None and not isinstance(item, kind):
        raise TypeError(f"{what} must be a {kind.__name__} or None, not {type(item).__name__}")
    return item


class Doc:
    """Base of all docs: a piece of Python source with the IR paths it renders."""

    __slots__ = ("_source_paths",)

    def __init__(self) -> None:
        self._source_paths: tuple[AccessPath, ...] = ()

    @property
    def source_paths(self) -> tuple[AccessPath, ...]:
        return self._source_paths

    @source_paths.setter
    def source_paths(self, paths: Iterable[AccessPath]) -> None:
        self._source_paths = tuple(paths)

    def __repr__(self) -> str:
        from .doc_printer import to_python_script

        try:
            text = to_python_script(self)
        except (ValueError, TypeError, AttributeError):  # a doc the printer refuses
            return f"<{type(self).__name__}>"
        return f"{type(self).__name__}({text!r})"


class ExprDoc(Doc):
    """Base of expression docs; `.attr`, `.call` and `[...]` build larger expressions."""

    __slots__ = ()

    def attr(self, name: str) -> AttrAccessDoc:
        return AttrAccessDoc(self, name)

    def call(self, *args: ExprDoc, **kwargs: ExprDoc) -> CallDoc:
        return CallDoc(self, *args, **kwargs)

    def __getitem__(self, indices: Any) -> IndexDoc:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return IndexDoc(self, list(indices))

    def __iter__(self) -> Any:
        # NOTE: without this, `__getitem__` would make every ExprDoc silently iterable (PEP 234).
        raise RuntimeError(f"{self.__class__} cannot be used as iterable.")


class StmtDoc(Doc):
    """Base of statement docs; `comment` prints next to (or, for blocks, above) the statement."""

    __slots__ = ("comment",)

    def __init__(self) -> None:
        super().__init__()
        self.comment: str | None = None


class StmtBlockDoc(Doc):
    """A list of statements printed one per line; a container, never a statement itself."""

    __slots__ = ("stmts",)

    def __init__(self, stmts: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.stmts = _docs(stmts, StmtDoc, "stmts")


class LiteralDoc(ExprDoc):
    """None, a bool, an int, a float or a str, printed as Python writes it."""

    __slots__ = ("value",)

    def __init__(self, value: str | float | bool | int | None,
                 path: AccessPath | None = None) -> None:
        super().__init__()
        if value is not None and not isinstance(value, (str, float, bool, int)):
            raise TypeError(f"Unsupported type {type(value)} for LiteralDoc")
        self.value = value
        if path is not None:
            self.source_paths = [path]


class IdDoc(ExprDoc):
    """An identifier."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class AttrAccessDoc(ExprDoc):
    """`value.name`."""

    __slots__ = ("value", "name")

    def __init__(self, value: ExprDoc, name: str) -> None:
        super().__init__()
        self.value = value
        self.name = name


class IndexDoc(ExprDoc):
    """`value[i, j:k]`; an empty index list prints as `value[()]`."""

    __slots__ = ("value", "indices")

    def __init__(self, value: ExprDoc, indices: Iterable[ExprDoc]) -> None:
        super().__init__()
        self.value = value
        self.indices = _docs(indices, ExprDoc, "indices")


class CallDoc(ExprDoc):
    """`callee(*args, **kwargs)`; keyword order is kept."""

    __slots__ = ("callee", "args", "kwargs_keys", "kwargs_values")

    def __init__(self, callee: ExprDoc, *args: ExprDoc, **kwargs: ExprDoc) -> None:
        super().__init__()
        self.callee = callee
        self.args = _docs(args, ExprDoc, "args")
        self.kwargs_keys = tuple(kwargs)
        self.kwargs_values = _docs(kwargs.values(), ExprDoc, "kwargs")


@unique
class OperationKind(IntEnum):
    """Operators of `OperationDoc`, named as in Python's `ast`. The values and the `_...Start` /
    `_...End` markers follow TVM's numbering: code tests a kind's arity by the ranges."""

    _UnaryStart = 0
    USub = 1
    Invert = 2
    Not = 3
    _UnaryEnd = 4

    _BinaryStart = 5
    Add = 6
    Sub = 7
    Mult = 8
    Div = 9
    FloorDiv = 10
    Mod = 11
    Pow = 12
    LShift = 13
    RShift = 14
    BitAnd = 15
    BitOr = 16
    BitXor = 17
    Lt = 18
    LtE = 19
    Eq = 20
    NotEq = 21
    Gt = 22
    GtE = 23
    And = 24
    Or = 25
    MatMul = 26
    _BinaryEnd = 27

    _SpecialStart = 28
    IfThenElse = 29
    _SpecialEnd = 30


class OperationDoc(ExprDoc):
    """A unary, binary or special (`a if c else b`, operands `[c, a, b]`) operation."""

    __slots__ = ("kind", "operands")

    def __init__(self, kind: OperationKind, operands: Iterable[ExprDoc]) -> None:
        super().__init__()
        self.kind = OperationKind(kind)
        self.operands = _docs(operands, ExprDoc, "operands")


class LambdaDoc(ExprDoc):
    """`lambda args: body`."""

    __slots__ = ("args", "body")

    def __init__(self, args: Iterable[IdDoc], body: ExprDoc) -> None:
        super().__init__()
        self.args = _docs(args, IdDoc, "args")
        self.body = body


class TupleDoc(ExprDoc):
    """A tuple literal: `()`, `(x,)`, `(x, y)`."""

    __slots__ = ("elements",)

    def __init__(self, elements: Iterable[ExprDoc]) -> None:
        super().__init__()
        self.elements = _docs(elements, ExprDoc, "elements")


class ListDoc(ExprDoc):
    """A list literal."""

    __slots__ = ("elements",)

    def __init__(self, elements: Iterable[ExprDoc]) -> None:
        super().__init__()
        self.elements = _docs(elements, ExprDoc, "elements")


class DictDoc(ExprDoc):
    """A dict literal; keys and values are kept as two parallel tuples, in order."""

    __slots__ = ("keys", "values")

    def __init__(self, content: dict[ExprDoc, ExprDoc]) -> None:
        super().__init__()
        self.keys = _docs(content.keys(), ExprDoc, "keys")
        self.values = _docs(content.values(), ExprDoc, "values")


class SliceDoc(ExprDoc):
    """`start:stop:step` inside an `IndexDoc`; each part may be absent."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start: ExprDoc | None = None, stop: ExprDoc | None = None,
                 step: ExprDoc | None = None) -> None:
        super().__init__()
        self.start = _optional(start, ExprDoc, "start")
        self.stop = _optional(stop, ExprDoc, "stop")
        self.step = _optional(step, ExprDoc, "step")


class AssignDoc(StmtDoc):
    """`lhs = rhs`, `lhs: annotation = rhs` or `lhs: annotation`; also a function parameter."""

    __slots__ = ("lhs", "rhs", "annotation")

    def __init__(self, lhs: ExprDoc, rhs: ExprDoc | None,
                 annotation: ExprDoc | None = None) -> None:
        super().__init__()
        if rhs is None and annotation is None:
            raise ValueError("AssignDoc needs a right-hand side or an annotation")
        if annotation is not None and not isinstance(lhs, IdDoc):
            raise ValueError("AssignDoc can only annotate an identifier, not "
                             f"{type(lhs).__name__}")
        self.lhs = lhs
        self.rhs = _optional(rhs, ExprDoc, "rhs")
        self.annotation = _optional(annotation, ExprDoc, "annotation")


class IfDoc(StmtDoc):
    """`if predicate:` with its branches; at least one branch must have statements."""

    __slots__ = ("predicate", "then_branch", "else_branch")

    def __init__(self, predicate: ExprDoc, then_branch: Iterable[StmtDoc],
                 else_branch: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.predicate = predicate
        self.then_branch = _docs(then_branch, StmtDoc, "then_branch")
        self.else_branch = _docs(else_branch, StmtDoc, "else_branch")
        if not self.then_branch and not self.else_branch:
            raise ValueError("IfDoc needs statements in its then or else branch")


class WhileDoc(StmtDoc):
    """`while predicate:` and its body."""

    __slots__ = ("predicate", "body")

    def __init__(self, predicate: ExprDoc, body: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.predicate = predicate
        self.body = _docs(body, StmtDoc, "body")


class ForDoc(StmtDoc):
    """`for lhs in rhs:` and its body."""

    __slots__ = ("lhs", "rhs", "body")

    def __init__(self, lhs: ExprDoc, rhs: ExprDoc, body: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.lhs = lhs
        self.rhs = rhs
        self.body = _docs(body, StmtDoc, "body")


class ScopeDoc(StmtDoc):
    """`with rhs as lhs:` (or `with rhs:` when lhs is None) and its body."""

    __slots__ = ("lhs", "rhs", "body")

    def __init__(self, lhs: ExprDoc | None, rhs: ExprDoc, body: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.lhs = _optional(lhs, ExprDoc, "lhs")
        self.rhs = rhs
        self.body = _docs(body, StmtDoc, "body")


class ExprStmtDoc(StmtDoc):
    """An expression on a line of its own."""

    __slots__ = ("expr",)

    def __init__(self, expr: ExprDoc) -> None:
        super().__init__()
        self.expr = expr


class AssertDoc(StmtDoc):
    """`assert test, msg`."""

    __slots__ = ("test", "msg")

    def __init__(self, test: ExprDoc, msg: ExprDoc | None = None) -> None:
        super().__init__()
        self.test = test
        self.msg = _optional(msg, ExprDoc, "msg")


class ReturnDoc(StmtDoc):
    """`return value`."""

    __slots__ = ("value",)

    def __init__(self, value: ExprDoc) -> None:
        super().__init__()
        self.value = value


class FunctionDoc(StmtDoc):
    """A `def` with decorators, parameters (AssignDocs), PEP 695 type parameters, an optional
    return annotation and a body; its `comment` prints as the docstring."""

    __slots__ = ("name", "args", "decorators", "return_type", "body", "type_params")

    def __init__(self, name: IdDoc, args: Iterable[AssignDoc], decorators: Iterable[ExprDoc],
                 return_type: ExprDoc | None, body: Iterable[StmtDoc],
                 type_params: Sequence[Doc] | None = None) -> None:
        super().__init__()
        self.name = name
        self.args = _docs(args, AssignDoc, "args")
        self.decorators = _docs(decorators, ExprDoc, "decorators")
        self.return_type = _optional(return_type, ExprDoc, "return_type")
        self.body = _docs(body, StmtDoc, "body")
        self.type_params = _docs(type_params or (), Doc, "type_params")


class ClassDoc(StmtDoc):
    """A `class` with decorators and a body; its `comment` prints as the docstring."""

    __slots__ = ("name", "decorators", "body")

    def __init__(self, name: IdDoc, decorators: Iterable[ExprDoc],
                 body: Iterable[StmtDoc]) -> None:
        super().__init__()
        self.name = name
        self.decorators = _docs(decorators, ExprDoc, "decorators")
        self.body = _docs(body, StmtDoc, "body")


class CommentDoc(StmtDoc):
    """`# ...` lines on their own."""

    __slots__ = ()

    def __init__(self, comment: str) -> None:
        super().__init__()
        self.comment = comment


class DocStringDoc(StmtDoc):
    """A triple-quoted string statement."""

    __slots__ = ()

    def __init__(self, docs: str) -> None:
        super().__init__()
        self.comment = docs


__all__ = ["AssertDoc", "AssignDoc", "AttrAccessDoc", "CallDoc", "ClassDoc", "CommentDoc",
           "DictDoc", "Doc", "DocStringDoc", "ExprDoc", "ExprStmtDoc", "ForDoc", "FunctionDoc",
           "IdDoc", "IfDoc", "IndexDoc", "LambdaDoc", "ListDoc", "LiteralDoc", "OperationDoc",
           "OperationKind", "ReturnDoc", "ScopeDoc", "SliceDoc", "StmtBlockDoc", "StmtDoc",
           "TupleDoc", "WhileDoc"]
