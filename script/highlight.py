"""Colour for printed TVMScript: `show()` in a terminal or notebook, `_repr_html_` in Jupyter.

Pygments is optional: without it (or when stdout is not a terminal, or `style="plain"`) the
text prints unchanged, so logs and pipes never receive escape codes.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import warnings
from typing import Any, TextIO

PLAIN_STYLES = ("plain", "none", "off")
HTML_COLOUR_MAX_CHARS = 400_000  # past this (a model with inlined weights) a plain <pre> is faster


def _pygments() -> Any:
    try:
        import pygments  # optional: colour is a nicety, never a dependency
    except ImportError:
        return None
    return pygments


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (whose stdout is no tty but renders ANSI colours)."""
    getipython = sys.modules.get("IPython.core.getipython")  # never import IPython ourselves
    shell = getipython.get_ipython() if getipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def _wants_colour(style: str | None, stream: TextIO) -> bool:
    if style is not None and style.lower() in PLAIN_STYLES:
        return False
    if style is not None:  # an explicit style asks for colour even in a pipe, as TVM's does
        return True
    isatty = getattr(stream, "isatty", None)
    return _in_notebook() or bool(isatty and isatty())


def _ansi(text: str, style: str | None) -> str:
    from pygments import highlight
    from pygments.formatters import Terminal256Formatter, TerminalFormatter
    from pygments.lexers import PythonLexer
    from pygments.styles import get_all_styles

    # "ansi"/"dark"/"light"/None are TVM's own names for the basic terminal palette
    if style in get_all_styles():
        formatter = Terminal256Formatter(style=style)
    else:
        formatter = TerminalFormatter(bg="light" if style == "light" else "dark")
    return highlight(text, PythonLexer(), formatter).rstrip("\n")


def _format(code_str: str, formatter: str | None = None) -> str:
    """TVM's `_format`: the code through the `ruff` formatter (when on PATH) or `black` (when
    installed), `formatter` choosing one; unchanged, with a warning, when neither is there."""
    if formatter not in (None, "ruff", "black"):
        raise ValueError(f"Unknown formatter: {formatter}")
    if formatter in (None, "ruff") and shutil.which("ruff") is not None:
        proc = subprocess.run(["ruff", "format", "--stdin-filename=TVMScript"], input=code_str,
                              capture_output=True, encoding="utf-8", check=False)
        if proc.returncode == 0:
            return proc.stdout
    if formatter in (None, "black"):
        try:
            import black  # optional, as in TVM
        except ImportError:
            pass
        else:
            return black.format_str(code_str, mode=black.FileMode())
    warnings.warn("Neither the 'ruff' formatter nor the 'black' formatter is available; "
                  "the TVMScript is printed unformatted.", UserWarning, stacklevel=2)
    return code_str


def cprint(printable: Any, style: str | None = None, black_format: bool = False,
           stream: TextIO | None = None) -> None:
    """Print TVMScript (a string, or anything with `script()`), highlighted when Pygments is
    present and colour is wanted; `black_format` formats it first (`_format`)."""
    text = printable if isinstance(printable, str) else printable.script()
    if black_format:
        text = _format(text)
    stream = stream if stream is not None else sys.stdout
    if _pygments() is not None and _wants_colour(style, stream):
        text = _ansi(text, style)
    print(text, file=stream)


def html_of(obj: Any) -> str | None:
    """`obj.script()` as HTML for Jupyter; None (so text/plain is shown) if it cannot print."""
    try:
        text = obj.script()
    except Exception:  # noqa: BLE001 (a display hook must not raise; the repr still shows)
        return None
    return to_html(text)


def to_html(text: str) -> str:
    """An HTML block for a notebook: Pygments markup when present, an escaped <pre> otherwise."""
    if _pygments() is None or len(text) > HTML_COLOUR_MAX_CHARS:
        return f"<pre>{html.escape(text)}</pre>"
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(text, PythonLexer(), HtmlFormatter(noclasses=True))
