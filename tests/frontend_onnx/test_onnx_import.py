"""from_onnx's contract: params, symbolic dims, shape_dict and the unsupported-op report."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_check import run_ort  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relax  # noqa: E402
from tvmlite.frontend import detach_params  # noqa: E402
from tvmlite.frontend.onnx import UnsupportedOnnxOpsError, from_onnx  # noqa: E402

RNG = np.random.default_rng(2)


def _dense_model(batch: object = "batch") -> object:
    w = RNG.standard_normal((4, 3)).astype("float32")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Relu", ["h"], ["y"])]
    graph = helper.make_graph(
        nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 3])],
        [numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(mod: object, *args: object) -> np.ndarray:
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    return vm["main"](*args).numpy()


def test_symbolic_batch_dim_runs_at_any_batch():
    model = _dense_model()
    mod = from_onnx(model)
    x_sinfo = mod["main"].params[0].struct_info
    assert x_sinfo.shape[0].name == "batch" and int(x_sinfo.shape[1]) == 4
    for n in (1, 5):
        x = RNG.standard_normal((n, 4)).astype("float32")
        np.testing.assert_allclose(_run(mod, x), run_ort(model, {"x": x})[0], rtol=1e-5)


def test_shape_dict_fixes_the_dim():
    mod = from_onnx(_dense_model(), shape_dict={"x": [2, 4]})
    assert [int(d) for d in mod["main"].params[0].struct_info.shape] == [2, 4]


def test_keep_params_in_input_and_detach_params():
    model = _dense_model(2)
    mod = from_onnx(model, keep_params_in_input=True)
    assert [p.name_hint for p in mod["main"].params] == ["x", "w"]
    mod, params = detach_params(mod)
    assert len(params["main"]) == 1
    x = RNG.standard_normal((2, 4)).astype("float32")
    np.testing.assert_allclose(_run(mod, x, *params["main"]), run_ort(model, {"x": x})[0],
                               rtol=1e-5)


def test_unsupported_ops_are_reported_together():
    nodes = [helper.make_node("Relu", ["x"], ["a"]),
             helper.make_node("Frobnicate", ["a"], ["b"], name="frob1"),
             helper.make_node("Hardmax", ["b"], ["y"], name="hm")]
    graph = helper.make_graph(
        nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    with pytest.raises(UnsupportedOnnxOpsError) as info:
        from_onnx(model)
    message = str(info.value)
    assert "Frobnicate" in message and "frob1" in message
    assert "Hardmax" in message and "'hm'" in message and "opset 14" in message
    assert "Relu" not in message
