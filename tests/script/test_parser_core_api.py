"""`tvm.script.parser.core`'s public pieces: `Source`, `_format_source_snippet` and
`ExprEvaluator.eval` (one expression evaluated the way the parser evaluates it)."""

import ast

import pytest

from tvmlite.script.parser.core.diagnostics import Source, _format_source_snippet
from tvmlite.script.parser.core.evaluator import ExprEvaluator, eval_expr
from tvmlite.tir import expr as tx


def calc(text, names=None):
    node = Source(text).as_ast().body[0].value
    return ExprEvaluator.eval(None, names or {}, node)


def test_constants_operators_and_names() -> None:
    assert calc("1, 2.5, 'x', None") == (1, 2.5, "x", None)
    assert calc("7 // 2, 7 % 3, 2 ** 5, -a, not b", {"a": 4, "b": False}) == (3, 1, 32, -4, True)
    assert calc("a[1:4:2], {'k': a[0]}", {"a": [5, 6, 7, 8]}) == ([6, 8], {"k": 5})
    assert calc("f(2, y=3)", {"f": lambda x, y: x * 10 + y}) == 23
    assert calc("len(s)", {"s": "abc"}) == 3  # builtins are visible


def test_expressions_build_tir_when_the_values_are_tir() -> None:
    n = tx.Var("n", "int32")
    got = calc("n * 4 + 1", {"n": n})
    assert isinstance(got, tx.PrimExpr) and str(got) == str(n * 4 + 1)


def test_an_undefined_name_is_a_located_error() -> None:
    with pytest.raises(ValueError, match="undefined variable 'zz'"):
        calc("1 + zz")


def test_eval_expr_takes_globals() -> None:
    assert eval_expr(None, ast.parse("a + b", mode="eval").body, {"a": 1, "b": 2}) == 3


def _sample(x):
    return x + 1


def test_source_of_a_function() -> None:
    src = Source(_sample)
    assert src.source.startswith("def _sample(x):")  # dedented, from its first line
    assert src.source_name == __file__ and src.start_column == 0
    with open(__file__) as f:
        assert f.read().splitlines()[src.start_line - 1] == "def _sample(x):"
    assert isinstance(src.as_ast().body[0], ast.FunctionDef)


def test_snippet_of_one_line_underlines_the_columns() -> None:
    text = _format_source_snippet(["skip\n", "    abc + def\n"], 2, 5, 2, 8)
    assert text.splitlines() == ["   |", " 2 |     abc + def", "   |     ^^^"]


def test_snippet_of_several_lines_shows_each() -> None:
    lines = ["skip\n", "    foo(bar,\n", "        baz)\n"]
    text = _format_source_snippet(lines, 2, 5, 3, 13)
    assert text.splitlines() == ["   |", " 2 |     foo(bar,", "   |     ^^^^^^^^",
                                 " 3 |         baz)", "   |         ^^^^"]
