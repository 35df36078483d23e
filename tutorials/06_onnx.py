# %% [markdown]
# # Tutorial 06: importing an ONNX model
#
# `relax.frontend.onnx.from_onnx` turns an `onnx.ModelProto` into an IRModule, as in TVM. Here a
# small CNN is written with `onnx.helper` (any exported `.onnx` file loads the same way with
# `onnx.load`), imported with a symbolic batch, compiled, and checked against ONNX Runtime.
#
#     python tutorials/06_onnx.py
#
# It needs the optional packages `onnx` and `onnxruntime` (`pip install tvmlite[test]`).

# %%
import importlib.util

import numpy as np

import tvmlite as tvm
from tvmlite import relax

HAVE_ONNX = all(importlib.util.find_spec(m) for m in ("onnx", "onnxruntime"))


# %% [markdown]
# ## A model: Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> Softmax
# The batch dim is the name "batch", so the imported function takes any batch size.

# %%
def build_model():
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = {"w": rng.standard_normal((8, 3, 3, 3)).astype("float32") * 0.3,
               "b": rng.standard_normal(8).astype("float32"),
               "fc_w": rng.standard_normal((10, 8)).astype("float32"),
               "fc_b": rng.standard_normal(10).astype("float32")}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["g"], transB=1),
             helper.make_node("Softmax", ["g"], ["y"], axis=-1)]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


# %% [markdown]
# ## Import, keep the weights as inputs, compile and run at two batch sizes

# %%
def main():
    import onnxruntime as ort

    from tvmlite.relax.frontend import detach_params
    from tvmlite.relax.frontend.onnx import from_onnx

    model = build_model()
    mod = from_onnx(model, keep_params_in_input=True)
    mod, params = detach_params(mod)
    mod.show()
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    for batch in (1, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 16, 16)).astype("float32")
        ours = vm["main"](x, *params["main"]).numpy()
        theirs = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-6)
        print(f"batch {batch}: prediction {ours.argmax(axis=1)} matches ONNX Runtime")


# %%
if __name__ == "__main__":
    if HAVE_ONNX:
        main()
    else:
        print("onnx / onnxruntime are not installed: pip install tvmlite[test]")
