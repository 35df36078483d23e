"""Helpers for the graph-level tests: build a one-op (or few-op) function with BlockBuilder."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir.struct_info import TensorStructInfo, tensor_sinfo
from tvmlite.tir import expr as tx


def sinfo(shape: Any, dtype: str) -> TensorStructInfo:
    dims = tuple(tx.Var(d, "int64") if isinstance(d, str) else d for d in shape)
    return tensor_sinfo(dims, dtype)


def run_graph(build: Callable[..., Any], arrays: list[np.ndarray],
              shapes: list[Any] | None = None, pipeline: Any = "default") -> Any:
    """`build(*vars)` returns the output expr; params get `shapes` (str = symbolic dim)."""
    bb = relax.BlockBuilder()
    names: dict[str, tx.Var] = {}
    params = []
    for i, a in enumerate(arrays):
        shape = shapes[i] if shapes else a.shape
        dims = tuple(names.setdefault(d, tx.Var(d, "int64")) if isinstance(d, str) else d
                     for d in shape)
        params.append(relax.Var(f"x{i}", tensor_sinfo(dims, str(a.dtype))))
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(build(*params)))
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), relax_pipeline=pipeline)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    res = vm["main"](*[tvm.nd.array(a) for a in arrays])
    return tuple(r.numpy() for r in res) if isinstance(res, tuple) else res.numpy()
