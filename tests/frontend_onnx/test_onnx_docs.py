"""docs/onnx_operators.md is what docs/make_onnx_operators.py generates from the table."""

import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_operator_docs_are_current():
    spec = importlib.util.spec_from_file_location("make_onnx_operators",
                                                  DOCS / "make_onnx_operators.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.render()
    assert "| Conv | `ops_nn` |" in text
    assert (DOCS / "onnx_operators.md").read_text() == text, \
        "run `python docs/make_onnx_operators.py` to regenerate docs/onnx_operators.md"
