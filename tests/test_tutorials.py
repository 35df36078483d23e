"""Every numbered tutorial and the demo run to completion (they assert their own results)."""

import pathlib
import runpy
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py"))
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
import cupy_emulator  # noqa: E402


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "prediction" in capsys.readouterr().out.lower() or path.stem[:2] != "01"


def test_gpu_tutorial_runs_its_kernels_on_the_cupy_emulator(capsys, monkeypatch):
    """Past the printed source: the tiled matmuls and the MLP run (on the CPU) and check out."""
    from tvmlite.vm import cuda

    missing = cupy_emulator.unavailable()
    if missing:
        pytest.skip(missing)
    timer = cuda.gpu_time_evaluator  # timing an emulator means nothing: time one call, not 20
    monkeypatch.setattr(cuda, "gpu_time_evaluator", lambda fn, number=10, repeat=1: timer(fn, 1, 1))
    with cupy_emulator.installed():
        runpy.run_path(str(ROOT / "tutorials" / "03_gpu_acceleration.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "No GPU here" not in out
    assert "tiled matmul 512x512" in out and "scheduled matmul 512x512" in out
    assert "GPU MLP matches numpy; the result lives on cuda(0)" in out


def test_demo_prints_both_predictions(capsys):
    runpy.run_module("tvmlite.demo", run_name="__main__")
    out = capsys.readouterr().out
    assert "MyModule Prediction:" in out and "NumPy-MLP Prediction:" in out
    assert "agree" in out
