"""Build one-node ONNX models and compare tvmlite's import against ONNX Runtime."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import tvmlite as tvm
from tvmlite import relax
from tvmlite.frontend.onnx import from_onnx

_NP_TO_ONNX = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("int64"): TensorProto.INT64,
               np.dtype("bool"): TensorProto.BOOL, np.dtype("int32"): TensorProto.INT32}


def one_node_model(op: str, inputs: dict[str, np.ndarray], attrs: dict | None = None,
                   inits: dict[str, np.ndarray] | None = None, n_out: int = 1,
                   opset: int = 17) -> Any:
    inits = inits or {}
    node = helper.make_node(op, [*inputs, *inits], [f"y{i}" for i in range(n_out)],
                            name=f"{op.lower()}_0", **(attrs or {}))
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, _NP_TO_ONNX[v.dtype], v.shape)
         for k, v in inputs.items()],
        [helper.make_empty_tensor_value_info(f"y{i}")
         for i in range(n_out)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_ort(model: Any, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, inputs)


def run_tvmlite(model: Any, inputs: dict[str, np.ndarray], **kwargs: Any) -> list[np.ndarray]:
    mod = from_onnx(model, **kwargs)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*inputs.values())
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [o.numpy() for o in outs]


def check(model: Any, inputs: dict[str, np.ndarray], rtol: float = 1e-4,
          atol: float = 1e-5) -> None:
    expected = run_ort(model, inputs)
    got = run_tvmlite(model, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, g.dtype, e.shape, e.dtype)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
