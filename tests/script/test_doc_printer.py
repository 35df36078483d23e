"""The printer's Doc layer: building docs and printing them as Python (expected text by hand)."""

import ast

import pytest

from tvmlite.ffi.access_path import AccessPath
from tvmlite.script.printer.doc import (
    AssertDoc,
    AssignDoc,
    CallDoc,
    ClassDoc,
    CommentDoc,
    DictDoc,
    DocStringDoc,
    ExprStmtDoc,
    ForDoc,
    FunctionDoc,
    IdDoc,
    IfDoc,
    LambdaDoc,
    ListDoc,
    LiteralDoc,
    OperationDoc,
    OperationKind,
    ReturnDoc,
    ScopeDoc,
    SliceDoc,
    StmtBlockDoc,
    TupleDoc,
    WhileDoc,
)
from tvmlite.script.printer.doc_printer import to_python_script

K = OperationKind
x, y, z = IdDoc("x"), IdDoc("y"), IdDoc("z")


def op(kind, *operands):
    return OperationDoc(kind, list(operands))


def test_docs_keep_their_parts_and_refuse_new_attributes():
    call = x.attr("f").call(y, k=z)
    assert call.callee.value is x and call.callee.name == "f"
    assert call.args == (y,) and call.kwargs_keys == ("k",) and call.kwargs_values == (z,)
    stmt = ExprStmtDoc(call)
    stmt.comment = "note"
    assert stmt.comment == "note"
    with pytest.raises(AttributeError):
        stmt.commnet = "typo"
    with pytest.raises(RuntimeError, match="cannot be used as iterable"):
        list(x)
    assert x[y, SliceDoc(z)].indices[1].start is z


def test_invalid_docs_are_refused():
    with pytest.raises(ValueError):
        AssignDoc(x, None, None)
    with pytest.raises(ValueError):
        AssignDoc(TupleDoc([x, y]), z, IdDoc("int"))
    with pytest.raises(ValueError):
        IfDoc(x, [], [])
    with pytest.raises(TypeError):
        FunctionDoc(IdDoc("f"), [], [], None, [StmtBlockDoc([])])


@pytest.mark.parametrize("value, text", [
    (None, "None"), (True, "True"), (-3, "-3"), (2.0, "2.0"), (0.1, "0.10000000000000001"),
    (1e20, "100000000000000000000.0"), (float("inf"), '"inf"'),
    ('say "hi"\n', r'"say \"hi\"\n"'), ("é\x01", r'"\xC3\xA9\x01"'),
])
def test_literals(value, text):
    assert to_python_script(LiteralDoc(value)) == text


@pytest.mark.parametrize("doc, text", [
    (op(K.Mult, op(K.Add, x, y), z), "(x + y) * z"),
    (op(K.Sub, x, op(K.Sub, y, z)), "x - (y - z)"),
    (op(K.Sub, op(K.Sub, x, y), z), "x - y - z"),
    (op(K.Pow, op(K.USub, x), op(K.USub, y)), "(-x) ** -y"),
    (op(K.Pow, x, op(K.Pow, y, z)), "x ** y ** z"),
    (op(K.Not, op(K.Or, x, y)), "not (x or y)"),
    (op(K.And, op(K.Not, x), op(K.Lt, y, z)), "not x and y < z"),
    (op(K.IfThenElse, x, y, op(K.IfThenElse, z, z, z)), "y if x else (z if z else z)"),
    (op(K.USub, y).attr("a"), "(-y).a"),
    (LambdaDoc([x], x).call(y), "(lambda x: x)(y)"),
    (LambdaDoc([], op(K.Add, x, y)), "lambda : x + y"),
    (x[()], "x[()]"),
    (x[SliceDoc(None, y, z), SliceDoc()], "x[:y:z, :]"),
    (TupleDoc([x]), "(x,)"),
    (ListDoc([x, y]), "[x, y]"),
    (DictDoc({LiteralDoc("k"): x}), '{"k": x}'),
    (CallDoc(IdDoc("f"), x, key=y), "f(x, key=y)"),
])
def test_expressions_parenthesize_by_precedence(doc, text):
    assert to_python_script(doc) == text
    ast.parse(text)  # the text is Python


def test_statements_and_comments():
    body = [
        AssignDoc(TupleDoc([x, TupleDoc([y, z])]), TupleDoc([y, z])),
        ForDoc(TupleDoc([x]), y, [AssertDoc(x, LiteralDoc("msg"))]),
        ScopeDoc(None, IdDoc("ctx").call(), [ReturnDoc(x)]),
        IfDoc(x, [], [WhileDoc(y, [])]),
        CommentDoc("one\ntwo"),
    ]
    body[0].comment = "unpack"
    body[1].comment = "loop"
    func = FunctionDoc(IdDoc("f"), [AssignDoc(x, LiteralDoc(1), IdDoc("int"))], [IdDoc("deco")],
                       LiteralDoc(None), body)
    func.comment = "Doc.\n\nMore."
    cls = ClassDoc(IdDoc("C"), [], [func, ExprStmtDoc(x)])
    assert to_python_script(cls) == '''class C:
    @deco
    def f(x: int = 1) -> None:
        """
        Doc.

        More.
        """
        x, (y, z) = y, z  # unpack
        # loop
        for x, in y:
            assert x, "msg"
        with ctx():
            return x
        if x:
            pass
        else:
            while y:
                pass
        # one
        # two

    x'''
    assert to_python_script(DocStringDoc("a")) == '"""\na\n"""'
    stmt = ExprStmtDoc(x)
    stmt.comment = "a\nb"
    with pytest.raises(ValueError, match="cannot have newline"):
        to_python_script(stmt)


def _with_path(doc, name):
    doc.source_paths = [AccessPath.root().attr(name)]
    return doc


def test_underline_exact_prefix_and_missing_paths():
    block = StmtBlockDoc([
        ExprStmtDoc(op(K.Add, _with_path(IdDoc("a"), "a"), _with_path(IdDoc("b"), "b"))),
        ExprStmtDoc(_with_path(IdDoc("a"), "a")),
    ])
    paths = [AccessPath.root().attr("b"), AccessPath.root().attr("a").array_item(0),
             AccessPath.root().attr("none")]
    assert to_python_script(block, path_to_underline=paths) == "\n".join([
        "Access path: <root>.b",
        "Access path: <root>.a[0]",
        "Note: The underlined object is the nearest visible parent of this path.",
        "Access path: <root>.none",
        "Note: No visible object for this path is rendered in TVMScript.",
        "",
        "a + b",
        "^   ^",
        "a",
        "^",
    ])


def test_underline_skips_indentation_and_comments_and_elides_context():
    inner = _with_path(AssignDoc(x, y), "s")
    inner.comment = "why"
    lines = [ExprStmtDoc(IdDoc(f"l{i}")) for i in range(6)]
    func = FunctionDoc(IdDoc("f"), [], [], None, [*lines[:3], inner, *lines[3:]])
    text = to_python_script(func, print_line_numbers=True, num_context_lines=1,
                            path_to_underline=[AccessPath.root().attr("s")])
    assert text == "\n".join([
        "Access path: <root>.s",
        "",
        "(... 3 lines skipped ...)",
        "4     l2",
        "5     x = y  # why",
        "      ^^^^^",
        "6     l3",
        "(... 2 lines skipped ...)",
    ])
    whole = _with_path(StmtBlockDoc([ExprStmtDoc(x), ExprStmtDoc(y)]), "w")
    path = [AccessPath.root().attr("w")]
    assert to_python_script(whole, path_to_underline=path, render_invisible_path_info=False) \
        == "x\n^\ny\n^"


def test_access_path_text_and_prefix():
    path = AccessPath.root().attr("functions").map_item("main").attr("body").array_item(2)
    assert str(path) == '<root>.functions["main"].body[2]'
    assert path.parent.is_prefix_of(path) and path.is_prefix_of(path)
    assert not path.is_prefix_of(path.parent)
    assert path.depth == 4


def test_blank_lines_belong_to_the_line_before_when_numbered():
    inner = FunctionDoc(IdDoc("g"), [], [], None, [_with_path(ExprStmtDoc(x), "x")])
    outer = FunctionDoc(IdDoc("f"), [], [], None, [inner, ExprStmtDoc(y)])
    outer.comment = "a\n\nb"
    text = to_python_script(outer, print_line_numbers=True,
                            path_to_underline=[AccessPath.root().attr("x")])
    assert text == "\n".join([
        "Access path: <root>.x",
        "",
        "1 def f():",
        '2     """',
        "3     a",
        "",
        "4     b",
        '5     """',
        "6     def g():",
        "7         x",
        "",
        "          ^",
        "8     y",
    ])
