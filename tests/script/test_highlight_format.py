"""`tvm.script.highlight._format` and `cprint` of a printable, as TVM's highlight module."""

import io
import os
import sys

import pytest

from tvmlite.script import highlight
from tvmlite.script import tir as T


@T.prim_func
def one(A: T.Buffer((1,), "float32")):
    A[0] = T.float32(1)


def test_format_uses_ruff_when_on_path(monkeypatch):
    ruff_dir = os.path.dirname(sys.executable)  # the venv's bin holds ruff
    if not os.path.exists(os.path.join(ruff_dir, "ruff")):
        pytest.skip("ruff is not installed next to this python")
    monkeypatch.setenv("PATH", ruff_dir + os.pathsep + os.environ.get("PATH", ""))
    assert highlight._format("x=( 1,2 )\n", "ruff") == "x = (1, 2)\n"


def test_format_without_formatters_warns_and_keeps_the_text(monkeypatch):
    monkeypatch.setattr(highlight.shutil, "which", lambda _name: None)
    monkeypatch.setitem(sys.modules, "black", None)  # makes `import black` fail
    with pytest.warns(UserWarning, match="Neither the 'ruff' formatter"):
        assert highlight._format("x=( 1,2 )\n") == "x=( 1,2 )\n"
    with pytest.raises(ValueError, match="Unknown formatter"):
        highlight._format("x = 1\n", "yapf")


def test_cprint_takes_a_printable():
    out = io.StringIO()
    highlight.cprint(one, style="plain", stream=out)
    assert out.getvalue() == one.script() + "\n"


def test_show_passes_script_options(capsys):
    from tvmlite.ffi.access_path import AccessPath

    one.show(style="plain", path_to_underline=[AccessPath.root()],
             extra_config={"render_invisible_path_info": False})
    printed = capsys.readouterr().out
    assert printed == one.script(path_to_underline=[AccessPath.root()],
                                 extra_config={"render_invisible_path_info": False}) + "\n"
    assert "\n^^^^^^^^^^^^\n" in printed  # under `@T.prim_func`
