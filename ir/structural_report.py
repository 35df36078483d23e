"""The message of `assert_structural_equal`, as TVM writes it: each side's TVMScript with the
first difference underlined, and the access path to it.

The comparison names the difference with a string path (`.body.seq[1].value`, `["main"]` for
a module's function, `['key']` for a map entry); `access_path` reads that back as the
`AccessPath` TVM reports, walking the compared object: a module's function becomes
`.functions[I.GlobalVar("main")]`, and the body of a function with blocks goes through TVM's
root block (`.body.block.body`), which the comparison skips. A step it cannot read (a map keyed
by an IR node) ends the path there: the printer then underlines the nearest part it shows.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..ffi.access_path import AccessPath
from ..tir import stmt as ts
from ..tir.function import PrimFunc
from .structural import _without_implicit_root

_STEP = re.compile(r"\.([A-Za-z_]\w*)|\[(-?\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def access_path(root: Any, text: str) -> AccessPath:
    """The AccessPath of the comparison's string path `text` inside `root`."""
    path, obj, pos = AccessPath.root(), root, 0
    text = "" if text == "<root>" else text
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            break
        pos = m.end()
        name, index, key = m.groups()
        if name is not None:
            parent, path, obj = obj, path.attr(name), getattr(obj, name, None)
            if name == "body" and isinstance(parent, PrimFunc) and _has_blocks(obj):
                # NOTE: TVM's function with blocks has a root block, which the comparison
                # skips when it is bare (`_without_implicit_root`): TVM's path goes through it
                stripped = _without_implicit_root(obj)
                if stripped is not obj or not isinstance(obj, ts.BlockRealize):
                    path, obj = path.attr("block").attr("body"), stripped
        elif index is not None:
            path = path.array_item(int(index))
            obj = obj[int(index)] if isinstance(obj, (list, tuple)) else None
        else:
            key = ast.literal_eval(key)
            gv = _global_var(obj, key)
            if gv is not None:  # a module's function, by name
                path, obj = path.attr("functions").map_item(gv), obj[gv]
            else:
                path = path.map_item(key)
                obj = obj.get(key) if isinstance(obj, dict) else None
    return path


def _has_blocks(s: Any) -> bool:
    if isinstance(s, (ts.BlockRealize, ts.Block)):
        return True
    if isinstance(s, ts.SeqStmt):
        return any(_has_blocks(x) for x in s.seq)
    return any(_has_blocks(getattr(s, name)) for name in ("body", "then_case", "else_case")
               if getattr(s, name, None) is not None)


def _global_var(obj: Any, name: str) -> Any:
    functions = getattr(obj, "functions", None)
    if not isinstance(functions, dict) or not hasattr(obj, "get_global_var"):
        return None
    return next((gv for gv in functions if getattr(gv, "name_hint", None) == name), None)


def mismatch_message(lhs: Any, rhs: Any, path: str) -> str | None:
    """TVM's message for a difference at `path`, or None when a side does not print."""
    try:
        parts = []
        for side, root in (("lhs", lhs), ("rhs", rhs)):
            where = access_path(root, path)
            text = root.script(path_to_underline=[where], syntax_sugar=False)
            parts.append(f"{side} at {where}:\n{text}")
    except Exception:  # noqa: BLE001 (a value without TVMScript: the caller's plain message)
        return None
    return "StructuralEqual check failed, caused by " + "\nand ".join(parts)
