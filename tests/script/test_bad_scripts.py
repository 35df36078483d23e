"""The bad-script corpus (bad_scripts.tvms): each case is a script with one line marked
`# error@COL: message`; parsing it must raise a DiagnosticError with that message at that
line and (1-based) column, showing the line with a caret. bad_builds.tvms holds programs that
parse but must not build (an index proven out of bounds), checked the same way at `tvm.build`."""

import re
from pathlib import Path

import pytest
from tvmlite.script import from_source
from tvmlite.script.diagnostics import DiagnosticError

CORPUS = Path(__file__).with_name("bad_scripts.tvms")
BUILD_CORPUS = Path(__file__).with_name("bad_builds.tvms")
MARK = re.compile(r"  # error@(\d+): (.*)$")


def load(corpus: Path = CORPUS) -> dict[str, str]:
    parts = re.split(r"^### (\S+)\n", corpus.read_text(), flags=re.M)[1:]
    return dict(zip(parts[::2], parts[1::2]))


CASES = load()
BUILD_CASES = load(BUILD_CORPUS)


def test_corpus_is_big_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_script(name):
    src = CASES[name]
    with pytest.raises(DiagnosticError) as info:
        from_source(src, name=f"{name}.py")
    _assert_located(info.value, src, name)


@pytest.mark.parametrize("name", sorted(BUILD_CASES))
def test_bad_build(name):
    import tvmlite as tvm

    src = BUILD_CASES[name]
    func = from_source(src, name=f"{name}.py")
    with pytest.raises(DiagnosticError) as info:
        tvm.build(func)
    assert isinstance(info.value, IndexError)
    _assert_located(info.value, src, name)


def _assert_located(err: DiagnosticError, src: str, name: str) -> None:
    """`err` has the message, line and column the case marks, and shows the line and caret."""
    marks = [(i + 1, MARK.search(ln)) for i, ln in enumerate(src.splitlines())]
    marks = [(line, m) for line, m in marks if m]
    assert len(marks) == 1, "each case marks exactly one line"
    line, m = marks[0]
    col, message = int(m.group(1)), m.group(2)
    assert err.message == message
    assert (err.span.line, err.span.column + 1) == (line, col)
    text = str(err).splitlines()
    assert text[0] == f"error: {message}"
    assert text[1] == f" --> {name}.py:{line}:{col}"
    if len(text) > 3:
        assert text[3].endswith(src.splitlines()[line - 1].rstrip())
        assert text[4].split("|", 1)[1].startswith(" " * col + "^")


def _run(tmp_path: Path, code: str) -> str:
    import subprocess
    import sys

    script = tmp_path / "user_code.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    return proc.stderr


def test_uncaught_error_shows_no_parser_frames(tmp_path):
    err = _run(tmp_path, '''from tvmlite.script import tir as T

@T.prim_func
def bad(A: T.Buffer((4,), "float32")):
    A[0] = nope
''')
    assert "user_code.py\", line 3" in err and "user_code.py:5:12" in err
    frames = [ln for ln in err.splitlines() if ln.startswith("  File ")]
    assert frames and all("user_code.py" in f for f in frames), err


def test_uncaught_error_from_linecache_cell(tmp_path):
    err = _run(tmp_path, '''import linecache
from tvmlite.script import ir as I, tir as T
src = """@I.ir_module
class M:
    @T.prim_func
    def bad(A: T.Buffer((4,), "float32")):
        A[0] = nope
"""
linecache.cache["<cell-7>"] = (len(src), None, src.splitlines(True), "<cell-7>")
exec(compile(src, "<cell-7>", "exec"), {"T": T, "I": I})
''')
    assert "<cell-7>:5:16" in err and "/script/" not in err
