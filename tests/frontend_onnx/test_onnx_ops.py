"""Each converter against ONNX Runtime on a one-node model."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_check import check, one_node_model  # noqa: E402

RNG = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("op", ["Relu", "Sigmoid", "Tanh", "Exp", "Erf", "Neg", "Abs"])
def test_unary(op):
    x = f32(2, 3)
    check(one_node_model(op, {"x": x}), {"x": x})


@pytest.mark.parametrize("op", ["Sqrt", "Log"])
def test_unary_positive(op):
    x = np.abs(f32(2, 3)) + 0.5
    check(one_node_model(op, {"x": x}), {"x": x})


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_binary_broadcast(op):
    a, b = f32(2, 3, 4), f32(3, 1) + 3.0
    check(one_node_model(op, {"a": a, "b": b}), {"a": a, "b": b})


def test_pow():
    a, b = np.abs(f32(2, 3)) + 0.1, f32(2, 3)
    check(one_node_model("Pow", {"a": a, "b": b}), {"a": a, "b": b})


@pytest.mark.parametrize("op", ["Equal", "Less", "Greater"])
def test_compare(op):
    a, b = np.array([[1, 2, 3]], "int64"), np.array([[3, 2, 1]], "int64")
    check(one_node_model(op, {"a": a, "b": b}), {"a": a, "b": b})


@pytest.mark.parametrize("op", ["And", "Or"])
def test_logical(op):
    a, b = np.array([True, False, True]), np.array([True, True, False])
    check(one_node_model(op, {"a": a, "b": b}), {"a": a, "b": b})


def test_not_and_where():
    c = np.array([True, False, True])
    check(one_node_model("Not", {"c": c}), {"c": c})
    x, y = f32(3), f32(3)
    check(one_node_model("Where", {"c": c, "x": x, "y": y}), {"c": c, "x": x, "y": y})


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("opset,axis", [(13, 1), (13, -1), (11, 1)])
def test_softmax(op, opset, axis):
    x = f32(2, 3, 4)
    check(one_node_model(op, {"x": x}, {"axis": axis}, opset=opset), {"x": x})


@pytest.mark.parametrize("trans_a,trans_b,alpha,beta", [(0, 0, 1.0, 1.0), (1, 1, 0.5, 2.0)])
def test_gemm(trans_a, trans_b, alpha, beta):
    a = f32(3, 2) if trans_a else f32(2, 3)
    b = f32(4, 3) if trans_b else f32(3, 4)
    model = one_node_model("Gemm", {"a": a}, {"transA": trans_a, "transB": trans_b,
                                              "alpha": alpha, "beta": beta},
                           inits={"b": b, "c": f32(4)})
    check(model, {"a": a})


def test_matmul_batched():
    a, b = f32(2, 3, 4), f32(4, 5)
    check(one_node_model("MatMul", {"a": a, "b": b}), {"a": a, "b": b})


@pytest.mark.parametrize("attrs,wshape", [
    ({}, (4, 3, 3, 3)),
    ({"pads": [1, 1, 1, 1], "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"dilations": [2, 2], "pads": [2, 1, 2, 1]}, (4, 3, 3, 3)),
    ({"group": 3, "pads": [1, 1, 1, 1]}, (6, 1, 3, 3)),
    ({"auto_pad": "SAME_UPPER", "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"auto_pad": "SAME_LOWER"}, (4, 3, 2, 2)),
])
def test_conv(attrs, wshape):
    x = f32(1, 3, 7, 7)
    model = one_node_model("Conv", {"x": x}, attrs, inits={"w": f32(*wshape),
                                                           "b": f32(wshape[0])})
    check(model, {"x": x})


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [2, 2], "strides": [2, 2]},
    {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1},
])
def test_pool(op, attrs):
    x = f32(1, 2, 6, 6)
    check(one_node_model(op, {"x": x}, attrs), {"x": x})


def test_global_average_pool():
    x = f32(2, 3, 4, 5)
    check(one_node_model("GlobalAveragePool", {"x": x}), {"x": x})


def test_batch_norm():
    x = f32(2, 3, 4, 4)
    inits = {"s": f32(3), "b": f32(3), "m": f32(3), "v": np.abs(f32(3)) + 0.5}
    check(one_node_model("BatchNormalization", {"x": x}, {"epsilon": 1e-3}, inits=inits),
          {"x": x})


def test_layer_norm():
    x = f32(2, 3, 8)
    check(one_node_model("LayerNormalization", {"x": x}, {"axis": -1},
                         inits={"g": f32(8), "b": f32(8)}), {"x": x})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    x = f32(2, 5)
    check(one_node_model("Gelu", {"x": x}, {"approximate": approximate}, opset=20), {"x": x})


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_flatten(axis):
    x = f32(2, 3, 4)
    check(one_node_model("Flatten", {"x": x}, {"axis": axis}), {"x": x})


def test_reshape_with_zero_and_minus_one():
    x = f32(2, 3, 4)
    check(one_node_model("Reshape", {"x": x}, inits={"s": np.array([0, -1], "int64")}),
          {"x": x})


def test_transpose_and_concat():
    x = f32(2, 3, 4)
    check(one_node_model("Transpose", {"x": x}, {"perm": [2, 0, 1]}), {"x": x})
    y = f32(2, 1, 4)
    check(one_node_model("Concat", {"x": x, "y": y}, {"axis": 1}), {"x": x, "y": y})


@pytest.mark.parametrize("opset", [11, 13])
def test_unsqueeze_squeeze(opset):
    x = f32(3, 1, 4)
    axes = [0, -1]
    if opset >= 13:
        un = one_node_model("Unsqueeze", {"x": x}, inits={"a": np.array(axes, "int64")},
                            opset=opset)
        sq = one_node_model("Squeeze", {"x": x}, inits={"a": np.array([1], "int64")},
                            opset=opset)
    else:
        un = one_node_model("Unsqueeze", {"x": x}, {"axes": axes}, opset=opset)
        sq = one_node_model("Squeeze", {"x": x}, {"axes": [1]}, opset=opset)
    check(un, {"x": x})
    check(sq, {"x": x})


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceMax"])
@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce(op, opset, keepdims):
    x = f32(2, 3, 4)
    axes_as_input = opset >= 18 or op == "ReduceSum"
    model = (one_node_model(op, {"x": x}, {"keepdims": keepdims},
                            inits={"a": np.array([1, -1], "int64")}, opset=opset)
             if axes_as_input else
             one_node_model(op, {"x": x}, {"keepdims": keepdims, "axes": [1, -1]}, opset=opset))
    check(model, {"x": x})


def test_cast_identity_dropout():
    x = f32(2, 3) * 4
    check(one_node_model("Cast", {"x": x}, {"to": 7}), {"x": x})
    check(one_node_model("Identity", {"x": x}), {"x": x})
    check(one_node_model("Dropout", {"x": x}), {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
def test_clip(opset):
    x = f32(3, 4) * 3
    inits = {"lo": np.array(-1.0, "float32"), "hi": np.array(0.5, "float32")}
    check(one_node_model("Clip", {"x": x}, inits=inits, opset=opset), {"x": x})
