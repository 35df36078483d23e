"""Finding the source of a decorated class or function.

We never search by name (a notebook or a file may define `MyModule` several times): a
function's code object knows its file and first line, and `linecache` holds the text of files
and of IPython cells alike. The whole file is parsed once (cached) so spans carry real line
numbers; the node is then found by its first line (the first decorator's line).
"""

from __future__ import annotations

import ast
import linecache
import types
from typing import Any

from ..diagnostics import SourceText, TVMScriptError

_AST_CACHE: dict[tuple[str, int], ast.Module] = {}


class SourceNotFound(TVMScriptError):
    pass


def file_source(filename: str) -> SourceText:
    lines = linecache.getlines(filename)
    if not lines:
        raise SourceNotFound(
            f"cannot read the source of TVMScript defined in {filename!r} (code run with "
            "plain `exec` keeps no source); use tvmlite.script.from_source(text) instead")
    return SourceText(filename, tuple(lines))


def parse_file(src: SourceText) -> ast.Module:
    key = (src.name, hash(src.lines))
    tree = _AST_CACHE.get(key)
    if tree is None:
        tree = ast.parse("".join(src.lines), src.name)
        _AST_CACHE[key] = tree
    return tree


def first_line(node: ast.FunctionDef | ast.ClassDef) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def find_def(tree: ast.AST, kind: type, line: int) -> Any:
    """The `kind` node (FunctionDef or ClassDef) whose first line is `line`."""
    for node in ast.walk(tree):
        if isinstance(node, kind) and first_line(node) == line:
            return node
    return None


def function_node(func: types.FunctionType) -> tuple[ast.FunctionDef, SourceText]:
    code = func.__code__
    src = file_source(code.co_filename)
    node = find_def(parse_file(src), ast.FunctionDef, code.co_firstlineno)
    if node is None:
        raise SourceNotFound(f"cannot find the definition of {func.__name__!r} in "
                             f"{code.co_filename}:{code.co_firstlineno}; the file may have "
                             "changed since it ran")
    return node, src


def class_node(cls: type, method_codes: list[types.CodeType], filename: str | None,
               call_line: int | None) -> tuple[ast.ClassDef, SourceText]:
    """The class statement of `cls`, found through its methods' code or the decorator's line."""
    filename = method_codes[0].co_filename if method_codes else filename
    if filename is None:
        raise SourceNotFound(f"cannot find the source of class {cls.__name__!r}")
    src = file_source(filename)
    tree = parse_file(src)
    lines = {c.co_firstlineno for c in method_codes}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or node.name != cls.__name__:
            continue
        mine = {first_line(f) for f in node.body if isinstance(f, ast.FunctionDef)}
        if lines and lines <= mine:
            return node, src
        end = node.end_lineno or node.lineno
        if not lines and call_line is not None and first_line(node) <= call_line <= end:
            return node, src
    raise SourceNotFound(f"cannot find the definition of class {cls.__name__!r} in {filename}; "
                         "the file may have changed since it ran")
