"""Cells executed in a real IPython kernel: error headers name the cell, modules render as HTML."""

import html
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELLS = [
    "import tvmlite as tvm\nfrom tvmlite.script import tir as T",
    # cell 2: line 4 uses an undefined buffer C
    '@T.prim_func\ndef bad(A: T.Buffer((8,), "float32")):\n    for i in range(8):\n'
    '        C[i] = A[i]',
    '@T.prim_func\ndef good(A: T.Buffer((8,), "float32")):\n    for i in range(8):\n'
    '        A[i] = A[i] + T.float32(1)\ngood',
]


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return nb.cells


def test_error_header_names_the_cell_and_carets_the_line(executed):
    err = next(o for o in executed[1].outputs if o.output_type == "error")
    text = err.evalue
    assert " --> Cell In[2], line 4, column 9" in text, text
    assert "4 |         C[i] = A[i]" in text and "\n   |         ^" in text, text
    assert "ipykernel" not in text


def test_prim_func_displays_as_highlighted_html(executed):
    data = executed[2].outputs[0]["data"]
    assert "text/html" in data
    markup = data["text/html"]
    text = html.unescape(re.sub(r"<[^>]+>", "", markup))
    assert "<span style=" in markup  # coloured tokens, not a bare <pre>
    assert 'def good(A: T.Buffer((8,), "float32")):' in text, text
    assert "A[i] = A[i] + T.float32(1.0)" in text, text
