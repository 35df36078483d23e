"""Helpers for the operator tests: run one op through LegalizeOps and the VM, and round-trip
its call through the TVMScript printer and parser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "graph"))
from graph_helpers import run_graph  # noqa: E402

from tvmlite import relax  # noqa: E402
from tvmlite.ir import assert_structural_equal  # noqa: E402
from tvmlite.ir.struct_info import tensor_sinfo  # noqa: E402
from tvmlite.script import from_source  # noqa: E402
from tvmlite.tir import expr as tx  # noqa: E402

RNG = np.random.default_rng(16)
__all__ = ["run_graph", "roundtrip", "rand", "RNG"]


def rand(*shape: int, dtype: str = "float32", lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    if dtype.startswith("int"):
        return RNG.integers(int(lo), int(hi), shape).astype(dtype)
    return RNG.uniform(lo, hi, shape).astype(dtype)


def roundtrip(build: Callable[..., Any], shapes: list[Any], dtypes: list[str] | None = None
              ) -> str:
    """Build `build(*params)` in a function, print it, parse the text back, compare; return
    the text (so tests can check how the call prints)."""
    bb = relax.BlockBuilder()
    names: dict[str, tx.Var] = {}
    params = []
    for i, shape in enumerate(shapes):
        dims = tuple(names.setdefault(d, tx.Var(d, "int64")) if isinstance(d, str) else d
                     for d in shape)
        params.append(relax.Var(f"x{i}", tensor_sinfo(dims, (dtypes or ["float32"] * 9)[i])))
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(build(*params)))
        bb.emit_func_output(out)
    mod = bb.get()
    text = mod.script()
    assert_structural_equal(from_source(text), mod)
    return text
