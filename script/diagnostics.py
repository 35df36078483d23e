"""Errors of the TVMScript parser, printed in TVM's format.

```
error: undefined variable 'C'
 --> tests/kernels.py:14:13
    |
 14 |             C[vi] = A[vi]
    |             ^
```

`DiagnosticError` derives from `TVMScriptError`, which derives from `ValueError`: a bad program
is a bad value handed to the parser, and `except ValueError` is what TVM users write around
parsing (TVM's own `DiagnosticError` is a `TVMError`, which users rarely name).
"""

from __future__ import annotations

import ast
import os
import sys
import types
from dataclasses import dataclass
from typing import Any

from ..tir.expr import Span
from ..vm import errors as tvm_errors


class TVMScriptError(ValueError):
    """Base of every error the script layer raises."""


@dataclass(frozen=True)
class SourceText:
    """The lines a span points into (kept so errors print without re-reading any file)."""

    name: str
    lines: tuple[str, ...]

    def line(self, lineno: int) -> str:
        return self.lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(self.lines) else ""

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None) or col + 1
        if hasattr(node, "body") and isinstance(node, ast.stmt):  # `for`, `with`, `def`, ...
            end_line, end_col = line, len(self.line(line))  # its header line, not its body
        return Span(self.name, line, col, end_line, end_col)


class DiagnosticError(TVMScriptError, tvm_errors.DiagnosticError):
    """A located error in a TVMScript program; `str(err)` is the full TVM-style report.
    Both a ValueError and TVM's `tvm.error.DiagnosticError`, so either `except` catches it."""

    def __init__(self, message: str, span: Span | None = None,
                 source: SourceText | None = None) -> None:
        self.message = message
        self.span = span
        self.source = source
        super().__init__(render(message, span, source))


def render(message: str, span: Span | None, source: SourceText | None) -> str:
    """`error: ...`, `--> file:line:col` (1-based column), the source line and a caret line."""
    out = [f"error: {message}"]
    if span is None:
        return out[0]
    out.append(f" --> {location(span.source_name, span.line, span.column + 1)}")
    return "\n".join(out + (snippet(span, source) if source is not None else []))


def snippet(span: Span, source: SourceText) -> list[str]:
    """The gutter, the source line(s) of `span` and the carets under it; none when the
    span's line is not in `source`."""
    text = source.line(span.line)
    if not text:
        return []
    if span.line < span.end_line <= span.line + _MAX_SPAN_LINES:
        return _multi_line(span, source)
    gutter = " " * (len(str(span.line)) + 1)
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    else:
        width = max(1, len(text) - span.column)
    return [f"{gutter} |", f" {span.line} | {text}", f"{gutter} | {' ' * span.column}{'^' * width}"]


_MAX_SPAN_LINES = 8  # a node spanning more shows its first line only


def _multi_line(span: Span, source: SourceText) -> list[str]:
    """Every line of a span that runs over several lines, each underlined: the first from
    the start column, the last up to the end column, the others from their first character."""
    width = len(str(span.end_line))
    gutter = " " * (width + 1)
    out = [f"{gutter} |"]
    for n in range(span.line, span.end_line + 1):
        text = source.line(n)
        start = span.column if n == span.line else len(text) - len(text.lstrip())
        stop = span.end_column if n == span.end_line else len(text)
        out += [f" {n:>{width}} | {text}",
                f"{gutter} | {' ' * start}{'^' * max(1, stop - start)}"]
    return out


def location(source_name: str, line: int, column: int) -> str:
    """`file:line:col`, or `Cell In[5], line 8, column 13` for a notebook cell, as IPython says."""
    cell = _ipython_cell_label(source_name)
    if cell is not None:
        return f"{cell}, line {line}, column {column}"
    return f"{source_name}:{line}:{column}"


def _ipython_cell_label(source_name: str) -> str | None:
    """IPython's own label for a cell's temp file (`Cell In[5]`); None outside IPython."""
    ipython_core = sys.modules.get("IPython.core.getipython")  # never import IPython ourselves
    if ipython_core is None:
        return None
    shell = ipython_core.get_ipython()
    compiler = getattr(shell, "compile", None)
    label = getattr(compiler, "format_code_name", lambda _: None)(source_name)
    return f"{label[0]} {label[1]}" if label else None


# ---------------------------------------------------------------------------------------------
# Showing a DiagnosticError without the parser's frames
#
# NOTE: Python appends a traceback entry for every frame an exception leaves, so the
# decorator's own frames (T.prim_func, entry.decorate) cannot be kept out of `__traceback__`.
# Instead they are marked `__tracebackhide__` (honoured by IPython and pytest) and a chained
# `sys.excepthook` drops them for plain scripts, so the user sees only their own lines.


def _hidden(tb: Any) -> bool:
    frame = tb.tb_frame
    return bool(frame.f_locals.get("__tracebackhide__")) or \
        os.path.abspath(frame.f_code.co_filename).startswith(_SCRIPT_DIR)


def trim_traceback(tb: Any) -> Any:
    """The traceback without the frames of tvmlite's script layer."""
    kept = []
    while tb is not None:
        if not _hidden(tb):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def _excepthook(exc_type: type, exc: BaseException, tb: Any) -> None:
    if isinstance(exc, TVMScriptError):
        tb = trim_traceback(tb)
        exc.__traceback__ = tb
    _PREVIOUS_HOOK(exc_type, exc, tb)


def install_excepthook() -> None:
    global _PREVIOUS_HOOK
    if sys.excepthook is not _excepthook:
        _PREVIOUS_HOOK = sys.excepthook
        sys.excepthook = _excepthook


_SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PREVIOUS_HOOK = sys.excepthook
