"""Hypothesis mutates valid scripts (deletes, replaces or duplicates tokens): the parser
either accepts the result or raises a DiagnosticError -- never an internal exception."""

import io
import sys
import tokenize
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmlite.script import from_source
from tvmlite.script.diagnostics import TVMScriptError

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lecture_modules  # noqa: E402
import new_syntax_modules  # noqa: E402
from test_constructs import ADD, RELAX_CASES, TIR_CASES, module, prim  # noqa: E402

SOURCES = [lecture_modules.MyModule.script(), new_syntax_modules.DynamicMLP.script(),
           *(prim(body) for body in TIR_CASES.values()),
           *(module(body, ADD) for body in RELAX_CASES.values())]


def tokens(src: str) -> list[tuple[int, int, str]]:
    """(start offset, end offset, text) of each meaningful token."""
    starts = [0]
    for line in src.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out: list[tuple[int, int, str]] = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, SyntaxError):
        return out  # NOTE: an earlier mutation broke the tokens; keep mutating the old list
    for tok in toks:
        if tok.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING):
            a = starts[tok.start[0] - 1] + tok.start[1]
            b = starts[tok.end[0] - 1] + tok.end[1]
            out.append((a, b, tok.string))
    return out


TOKENS = [tokens(s) for s in SOURCES]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    k = draw(st.integers(0, len(SOURCES) - 1))
    src, toks = SOURCES[k], TOKENS[k]
    for _ in range(draw(st.integers(1, 3))):
        toks = tokens(src) or toks
        a, b, _text = toks[draw(st.integers(0, len(toks) - 1))]
        kind = draw(st.sampled_from(["delete", "replace", "duplicate"]))
        other = toks[draw(st.integers(0, len(toks) - 1))][2]
        new = {"delete": "", "replace": other, "duplicate": src[a:b] + " " + other}[kind]
        src = src[:a] + new + src[b:]
    return src


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # Python's own, on mutated literals
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutations_raise_only_diagnostics(src):
    try:
        from_source(src)
    except TVMScriptError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_accepted_mutations_roundtrip(src):
    from tvmlite.ir.structural import assert_structural_equal
    from tvmlite.ir.well_formed import check

    try:
        first = from_source(src)
    except TVMScriptError:
        return
    if check(first):  # NOTE: only well-formed IR promises a round trip
        return
    text = first.script()
    second = from_source(text)
    assert_structural_equal(second, first)
    assert second.script() == text
