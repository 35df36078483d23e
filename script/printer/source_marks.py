"""Marks in printed TVMScript around the text of chosen IR objects, for underlining.

The text printers write strings, not docs; to learn where an object's text lies, the caller
`watching({id(obj): n})` asks the printers to wrap that object's text in two private-use
characters carrying `n` (`mark` for an expression's text, `mark_lines` for a statement's
lines). `strip_marks` removes them again and returns each mark's spans in the clean text.
With nothing watched (every ordinary `script()`), both are a dict lookup on an empty dict.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

OPEN, CLOSE, BASE = "\ue000", "\ue001", 0xE100  # a mark is OPEN or CLOSE, then chr(BASE + n)
_MARK = re.compile("[\ue000\ue001][\ue100-\uf8ff]")
WATCHED: dict[int, int] = {}  # mutated in place: printers test it as `if WATCHED:`


@contextmanager
def watching(marks: dict[int, int]) -> Iterator[None]:
    """Within the block, printers mark the text of the objects whose ids are keys."""
    saved = dict(WATCHED)
    WATCHED.clear()
    WATCHED.update(marks)
    try:
        yield
    finally:
        WATCHED.clear()
        WATCHED.update(saved)


def mark(obj: Any, text: str) -> str:
    n = WATCHED.get(id(obj))
    return text if n is None else f"{OPEN}{chr(BASE + n)}{text}{CLOSE}{chr(BASE + n)}"


def mark_lines(obj: Any, lines: list[str], start: int) -> None:
    """Marks `lines[start:]`, the lines printed for `obj`, from the first one's indentation."""
    n = WATCHED.get(id(obj))
    if n is None or start >= len(lines):
        return
    first = lines[start]
    indent = len(first) - len(first.lstrip(" "))
    lines[start] = f"{first[:indent]}{OPEN}{chr(BASE + n)}{first[indent:]}"
    lines[-1] += f"{CLOSE}{chr(BASE + n)}"


def strip_marks(text: str) -> tuple[str, dict[int, list[tuple[int, int]]]]:
    """The text without marks, and for each mark number its (start, end) spans in it."""
    out: list[str] = []
    spans: dict[int, list[tuple[int, int]]] = {}
    open_at: dict[int, list[int]] = {}
    pos = last = 0
    for m in _MARK.finditer(text):
        out.append(text[last:m.start()])
        pos += m.start() - last
        last = m.end()
        n = ord(m.group()[1]) - BASE
        if m.group()[0] == OPEN:
            open_at.setdefault(n, []).append(pos)
        elif open_at.get(n):
            spans.setdefault(n, []).append((open_at[n].pop(), pos))
    out.append(text[last:])
    return "".join(out), spans


def annotate(text: str, n: int, note: str) -> str:
    """Adds `note` as a comment to each text marked `n`: after it when it is one line, above
    it when it spans several (as TVM comments simple and compound statements)."""
    opened, closed = OPEN + chr(BASE + n), CLOSE + chr(BASE + n)
    edits: list[tuple[int, str]] = []
    start = text.find(opened)
    while start >= 0:
        end = text.find(closed, start)
        if end < 0:
            break
        if "\n" not in text[start:end]:
            line_end = text.find("\n", end)
            edits.append((len(text) if line_end < 0 else line_end, "  # " + note))
        else:
            line_start = text.rfind("\n", 0, start) + 1
            indent = _MARK.sub("", text[line_start:start])  # an outer mark may open here
            edits.append((start, "# " + note + "\n" + indent))
        start = text.find(opened, end)
    for pos, insert in sorted(edits, reverse=True):
        text = text[:pos] + insert + text[pos:]
    return text
