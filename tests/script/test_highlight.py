"""show() colours TVMScript like TVM's (Pygments present, terminal), plain text otherwise."""

import html as html_lib
import io
import re
import sys

import pytest

from tvmlite.script import highlight
from tvmlite.script import tir as T

ANSI = "\x1b["


@T.prim_func
def add_one(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1)


@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * T.float32(2)


class Tty(io.StringIO):
    def isatty(self):
        return True


def shown(monkeypatch, obj, stream, **kwargs):
    monkeypatch.setattr(sys, "stdout", stream)
    obj.show(**kwargs)
    return stream.getvalue()


def test_terminal_gets_ansi_colour_that_strips_back_to_the_script(monkeypatch):
    pytest.importorskip("pygments")
    monkeypatch.setattr(highlight, "_in_notebook", lambda: False)
    out = shown(monkeypatch, add_one, Tty())
    assert ANSI in out
    assert re.sub(r"\x1b\[[0-9;]*m", "", out) == add_one.script() + "\n"


def test_pipe_and_plain_style_get_plain_text(monkeypatch):
    monkeypatch.setattr(highlight, "_in_notebook", lambda: False)
    assert shown(monkeypatch, add_one, io.StringIO()) == add_one.script() + "\n"
    assert shown(monkeypatch, add_one, Tty(), style="plain") == add_one.script() + "\n"


def test_tvm_keywords_accepted_and_named_style_colours_a_pipe(monkeypatch):
    pytest.importorskip("pygments")
    mod = tvm_module()
    out = shown(monkeypatch, mod, io.StringIO(), style="monokai", black_format=False)
    assert ANSI in out and "38;5;" in out  # a named Pygments style uses the 256-colour palette


def test_without_pygments_show_is_plain_and_html_is_an_escaped_pre(monkeypatch):
    monkeypatch.setattr(highlight, "_pygments", lambda: None)
    assert shown(monkeypatch, add_one, Tty()) == add_one.script() + "\n"
    html = add_one._repr_html_()
    assert html.startswith("<pre>") and "&quot;float32&quot;" in html and '"' not in html


def test_repr_html_of_module_and_relax_function_carry_their_script():
    pytest.importorskip("pygments")
    mod = tvm_module()
    for obj in (mod, mod["main"]):
        markup = obj._repr_html_()
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", markup))
        assert "<span style=" in markup and text.strip() == obj.script().strip()


def tvm_module():
    from tvmlite.script import ir as I
    from tvmlite.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            y = R.add(x, x)
            return y

    return Mod


def test_schedule_and_trace_show_colour_in_a_terminal_and_not_in_a_pipe(monkeypatch):
    pytest.importorskip("pygments")
    from tvmlite.tir.schedule import Schedule

    monkeypatch.setattr(highlight, "_in_notebook", lambda: False)
    sch = Schedule(scale)
    sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[2, 4])
    plain = sch.mod.script() + "\n" + str(sch.trace) + "\n"
    assert shown(monkeypatch, sch, io.StringIO()) == plain
    coloured = shown(monkeypatch, sch, Tty())
    assert ANSI in coloured and re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    assert shown(monkeypatch, sch.trace, Tty(), style="plain") == str(sch.trace) + "\n"


def test_repr_html_is_none_when_the_printer_fails_and_plain_when_huge(monkeypatch):
    class Unprintable:
        def script(self):
            raise NotImplementedError("no printer for this node")

    assert highlight.html_of(Unprintable()) is None
    monkeypatch.setattr(highlight, "HTML_COLOUR_MAX_CHARS", 10)
    assert add_one._repr_html_() == "<pre>" + html_lib.escape(add_one.script()) + "</pre>"
