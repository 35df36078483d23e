"""Underlining for the doc printer: where each doc's text lies, and the final decoration.

`Output` collects the printed text with the start of every logical line (a `newline()`; a
`newline_without_indent()` adds a blank line inside the current logical line, as TVM counts
them), the ranges underlining skips (line breaks, indentation, comments) and, per path to
underline, the text spans of the docs whose source paths match it best. `decorate` turns that
into the result: the access-path header, line numbers, `^` lines and skipped-context markers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...ffi.access_path import AccessPath

NO_VISIBLE_NOTE = "Note: No visible object for this path is rendered in TVMScript."
PARENT_NOTE = "Note: The underlined object is the nearest visible parent of this path."


@dataclass
class UnderlineOptions:
    paths: list[AccessPath]
    print_line_numbers: bool = False
    num_context_lines: int = -1  # negative: print every line
    render_invisible_path_info: bool = True


class Output:
    """The text being printed, its logical lines and the spans to underline."""

    def __init__(self, paths: list[AccessPath]) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.line_starts = [0]
        self.exempted: list[tuple[int, int]] = []
        self.paths = paths
        # per path: the depth of the best matching doc path so far (-1: none) and its spans
        self.best_depth = [-1] * len(paths)
        self.spans: list[list[tuple[int, int]]] = [[] for _ in paths]

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)

    def newline(self, indent: int) -> None:
        start = self.pos
        self.write("\n")
        self.line_starts.append(self.pos)
        self.write(" " * indent)
        self.exempt(start, self.pos)

    def newline_without_indent(self) -> None:
        self.exempt(self.pos, self.pos + 1)
        self.write("\n")

    def exempt(self, start: int, end: int) -> None:
        if end > start:
            self.exempted.append((start, end))

    def mark(self, start: int, source_paths: Iterable[AccessPath]) -> None:
        """Records that the text from `start` to here renders `source_paths`: a doc path
        equal to or a prefix of a path to underline matches it; the deepest match wins, ties
        are all underlined."""
        for doc_path in source_paths:
            for i, target in enumerate(self.paths):
                if not doc_path.is_prefix_of(target):
                    continue
                depth = doc_path.depth
                if depth > self.best_depth[i]:
                    self.best_depth[i], self.spans[i] = depth, []
                if depth == self.best_depth[i]:
                    self.spans[i].append((start, self.pos))

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _lines(text: str, starts: list[int]) -> list[tuple[int, str]]:
    """Each logical line as (offset, text); the line break ending it is not part of it."""
    if not text:
        return []
    kept = [s for s in starts if s <= len(text)]  # a line may start at the very end
    ends = [s - 1 for s in kept[1:]] + [len(text)]
    return [(s, text[s:e]) for s, e in zip(kept, ends)]


def _underline_mask(out: Output, size: int) -> bytearray:
    mask = bytearray(size)
    for spans in out.spans:
        for start, end in spans:
            mask[start:min(end, size)] = b"\x01" * max(0, min(end, size) - start)
    for start, end in out.exempted:
        mask[start:min(end, size)] = bytes(max(0, min(end, size) - start))
    return mask


def _underline(mask: bytearray, offset: int, line: str) -> str:
    first = line.split("\n", 1)[0]  # a logical line may end in blank lines
    return "".join("^" if mask[offset + i] else " " for i in range(len(first))).rstrip()


def _visible(n: int, underlined: list[int], context: int) -> list[bool]:
    if context < 0 or not underlined:
        return [True] * n
    shown = [any(abs(i - u) <= context for u in underlined) for i in range(n)]
    # NOTE: a single hidden line is printed: its skip marker would take a line anyway
    for i in range(n):
        if not shown[i] and (i == 0 or shown[i - 1]) and (i == n - 1 or shown[i + 1]):
            shown[i] = True
    return shown


def _header(out: Output) -> list[str]:
    header = []
    for path, depth in zip(out.paths, out.best_depth):
        header.append(f"Access path: {path}")
        if depth < 0:
            header.append(NO_VISIBLE_NOTE)
        elif depth < path.depth:
            header.append(PARENT_NOTE)
    return header


def decorate(out: Output, options: UnderlineOptions) -> str:
    """The final text: trailing spaces and one trailing line break dropped, then underlines,
    line numbers, context elision and the access-path header as requested."""
    text = out.text.rstrip(" ")
    text = text[:-1] if text.endswith("\n") else text
    if not options.paths and not options.print_line_numbers and not any(out.spans):
        return text
    lines = _lines(text, out.line_starts)
    mask = _underline_mask(out, len(text))
    marks = [_underline(mask, offset, line) for offset, line in lines]
    shown = _visible(len(lines), [i for i, m in enumerate(marks) if m],
                     options.num_context_lines)
    width = len(str(len(lines)))
    result: list[str] = []
    skipped = 0
    for i, (_, line) in enumerate(lines):
        if not shown[i]:
            skipped += 1
            continue
        if skipped:
            result.append(f"(... {skipped} lines skipped ...)")
            skipped = 0
        prefix = f"{i + 1:>{width}} " if options.print_line_numbers else ""
        result.append(prefix + line)
        if marks[i]:
            result.append(" " * len(prefix) + marks[i])
    if skipped:
        result.append(f"(... {skipped} lines skipped ...)")
    body = "\n".join(result)
    if options.paths and options.render_invisible_path_info:
        return "\n".join(_header(out)) + "\n\n" + body
    return body
