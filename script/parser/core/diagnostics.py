"""`tvm.script.parser.core.diagnostics`: the source a TVMScript program is parsed from, and the
located errors (TVM's `Source`, `_format_source_snippet`), over tvmlite's script diagnostics."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from ....tir.expr import Span
from ...diagnostics import DiagnosticError, SourceText, TVMScriptError, render, snippet


class Source:
    """A program's text: a string as given, or the source of a function or class (dedented;
    `start_line` / `start_column` say where it sits in `source_name`)."""

    def __init__(self, program: str | Any) -> None:
        if isinstance(program, str):
            self.source_name, self.start_line, self.start_column = "<str>", 1, 0
            self.source = self.full_source = program
            return
        self.source_name = inspect.getsourcefile(program) or "<unknown>"
        lines, self.start_line = inspect.getsourcelines(program)
        first = lines[0] if lines else ""
        self.start_column = len(first) - len(first.lstrip())
        self.source = textwrap.dedent("".join(lines))
        module = inspect.getmodule(program)
        self.full_source = inspect.getsource(module) if module is not None else self.source

    def as_ast(self) -> ast.Module:
        return ast.parse(self.source)


def _format_source_snippet(source_lines: list[str], lineno: int, col_offset: int,
                           end_lineno: int, end_col_offset: int) -> str:
    """The gutter, lines and carets of a span given with 1-based columns (end exclusive)."""
    span = Span("<snippet>", lineno, col_offset - 1, end_lineno, end_col_offset - 1)
    return "\n".join(snippet(span, SourceText("<snippet>", tuple(source_lines))))


__all__ = ["DiagnosticError", "Source", "TVMScriptError", "render"]
