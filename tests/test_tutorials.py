"""Every numbered tutorial runs as a Jupyter notebook in a real IPython kernel.

jupytext turns each percent-format `tutorials/NN_*.py` into a notebook and nbclient executes it
cell by cell, so notebook-only breakage (display hooks, cell file names, `%` magics) fails here.
One kernel serves the whole module (a kernel start costs a second or two): each notebook starts
with `%reset -f`, as a fresh kernel would, and the tutorials assert their own results.
"""

import html
import pathlib
import re
import runpy
import sys

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

ROOT = pathlib.Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py"))
GPU_DIR = ROOT / "tests" / "gpu"
sys.path.insert(0, str(GPU_DIR))
import cupy_emulator  # noqa: E402


@pytest.fixture(scope="module")
def kernel():
    client = nbclient.NotebookClient(nbformat.v4.new_notebook(), timeout=300,
                                     kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    with client.setup_kernel():
        yield client


def run_cells(client, sources, allow_errors=False):
    """Execute code cells (after a namespace reset) in the shared kernel; the executed cells."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%reset -f")])
    nb.cells += [c if isinstance(c, dict) else nbformat.v4.new_code_cell(c) for c in sources]
    client.nb, client.allow_errors = nb, allow_errors
    for index, cell in enumerate(nb.cells):
        client.execute_cell(cell, index)
    return nb.cells[1:]


def stdout_of(cells):
    return "".join(o.get("text", "") for c in cells for o in c.get("outputs", [])
                   if o.output_type == "stream")


def notebook_cells(path):
    return jupytext.read(path).cells


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs_as_a_notebook(kernel, path):
    out = stdout_of(run_cells(kernel, notebook_cells(path)))
    assert "prediction" in out.lower() or path.stem[:2] != "01"


def test_gpu_tutorial_runs_its_kernels_on_the_cupy_emulator(kernel):
    """Past the printed source: the tiled matmuls and the MLP run (on the CPU) and check out."""
    missing = cupy_emulator.unavailable()
    if missing:
        pytest.skip(missing)
    # timing an emulator means nothing: time one call, not 20
    setup = (f"import sys; sys.path.insert(0, {str(GPU_DIR)!r}); import cupy_emulator\n"
             "from tvmlite.vm import cuda\n"
             "_timer = cuda.gpu_time_evaluator\n"
             "cuda.gpu_time_evaluator = lambda fn, number=10, repeat=1: _timer(fn, 1, 1)\n"
             "_emulator = cupy_emulator.installed(); _emulator.__enter__()")
    teardown = "_emulator.__exit__(None, None, None); cuda.gpu_time_evaluator = _timer"
    cells = notebook_cells(ROOT / "tutorials" / "03_gpu_acceleration.py")
    out = stdout_of(run_cells(kernel, [setup, *cells, teardown]))
    assert "No GPU here" not in out
    assert "tiled matmul 512x512" in out and "scheduled matmul 512x512" in out
    assert "GPU MLP matches numpy; the result lives on cuda(0)" in out


BAD_CELL = '''@T.prim_func
def bad(A: T.Buffer((8,), "float32")):
    for i in range(8):
        C[i] = A[i]'''

GOOD_CELL = '''@T.prim_func
def good(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = A[i] + T.float32(1)
good'''


def test_script_error_in_a_cell_names_the_cell_and_carets_the_line(kernel):
    imports = "import tvmlite as tvm\nfrom tvmlite.script import tir as T"
    _, bad = run_cells(kernel, [imports, BAD_CELL], allow_errors=True)
    err = next(o for o in bad.outputs if o.output_type == "error")
    assert err.ename == "DiagnosticError"
    # IPython's own name for the cell, line 4 of it, column 9 (1-based) where `C` starts
    assert f" --> Cell In[{bad.execution_count}], line 4, column 9\n" in err.evalue, err.evalue
    assert " 4 |         C[i] = A[i]\n   |         ^" in err.evalue, err.evalue
    assert "ipykernel" not in err.evalue


def test_prim_func_displays_as_highlighted_html_and_shows_in_colour(kernel):
    imports = "import tvmlite as tvm\nfrom tvmlite.script import tir as T"
    _, good, shown = run_cells(kernel, [imports, GOOD_CELL, "good.show()"])
    # a kernel's stdout is no tty, yet Jupyter renders ANSI: show() colours there
    coloured = stdout_of([shown])
    assert "\x1b[" in coloured
    assert 'def good(A: T.Buffer((8,), "float32")):' in re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    markup = good.outputs[0]["data"]["text/html"]
    text = html.unescape(re.sub(r"<[^>]+>", "", markup))
    assert "<span style=" in markup  # coloured tokens, not a bare <pre>
    assert 'def good(A: T.Buffer((8,), "float32")):' in text, text
    assert "A[i] = A[i] + T.float32(1.0)" in text, text


def test_demo_prints_both_predictions(capsys):
    runpy.run_module("tvmlite.demo", run_name="__main__")
    out = capsys.readouterr().out
    assert "MyModule Prediction:" in out and "NumPy-MLP Prediction:" in out
    assert "agree" in out
