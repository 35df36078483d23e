"""Every numbered tutorial and the demo run to completion (they assert their own results)."""

import pathlib
import runpy

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "prediction" in capsys.readouterr().out.lower() or path.stem[:2] != "01"


def test_demo_prints_both_predictions(capsys):
    runpy.run_module("tvmlite.demo", run_name="__main__")
    out = capsys.readouterr().out
    assert "MyModule Prediction:" in out and "NumPy-MLP Prediction:" in out
    assert "agree" in out
