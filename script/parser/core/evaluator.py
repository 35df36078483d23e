"""`tvm.script.parser.core.evaluator`: evaluate one Python expression AST as the TVMScript
parser does, names looked up in a value table (TVM's `ExprEvaluator.eval`)."""

from __future__ import annotations

import ast
from typing import Any

from ...diagnostics import SourceText
from . import Dialect, Parser

_PLAIN = Dialect("Python")  # no statement handlers: only expressions are evaluated


class ExprEvaluator:
    """`ExprEvaluator.eval(parser, {"a": 1}, node)`: the value of the expression `node`."""

    @staticmethod
    def eval(parser: Parser | None, value_table: dict[str, Any], node: ast.AST) -> Any:
        """With a parser, its own names stay visible under `value_table`; without one, only
        `value_table` and Python's builtins are."""
        if parser is None:
            parser = Parser(SourceText("<expr>", ()), {}, _PLAIN)
        with parser.active(), parser.scope() as names:
            names.update(value_table)
            return parser.eval(node)


def eval_expr(parser: Parser | None, node: ast.AST,
              dict_globals: dict[str, Any] | None = None) -> Any:
    """TVM's functional spelling: `node` evaluated with `dict_globals` as the value table."""
    return ExprEvaluator.eval(parser, dict(dict_globals or {}), node)


__all__ = ["ExprEvaluator", "eval_expr"]
