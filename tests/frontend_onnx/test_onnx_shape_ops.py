"""Shape-computing converters (Shape, Gather, Slice, Split, Expand, ...) against ONNX Runtime."""

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_check import check, one_node_model  # noqa: E402

RNG = np.random.default_rng(1)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


def i64(*values: int) -> np.ndarray:
    return np.array(values, "int64")


def test_shape():
    x = f32(2, 3, 4)
    check(one_node_model("Shape", {"x": x}), {"x": x})
    check(one_node_model("Shape", {"x": x}, {"start": 1}, opset=15), {"x": x})


@pytest.mark.parametrize("axis,indices", [(0, i64(1, 0)), (1, i64(-1, 0, 2)), (2, i64(3))])
def test_gather(axis, indices):
    x = f32(2, 3, 4)
    check(one_node_model("Gather", {"x": x}, {"axis": axis}, inits={"i": indices}), {"x": x})


@pytest.mark.parametrize("starts,ends,axes,steps", [
    (i64(0, 1), i64(1, 3), i64(0, 2), i64(1, 1)),
    (i64(1), i64(-1), i64(1), i64(1)),
    (i64(0), i64(4), i64(-1), i64(2)),
])
def test_slice(starts, ends, axes, steps):
    x = f32(2, 3, 4)
    model = one_node_model("Slice", {"x": x},
                           inits={"s": starts, "e": ends, "a": axes, "t": steps})
    check(model, {"x": x})


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_split(opset):
    x = f32(2, 6)
    if opset == 11:
        model = one_node_model("Split", {"x": x}, {"axis": 1, "split": [2, 4]}, n_out=2,
                               opset=opset)
    elif opset == 13:
        model = one_node_model("Split", {"x": x}, {"axis": 1}, inits={"s": i64(1, 5)},
                               n_out=2, opset=opset)
    else:
        model = one_node_model("Split", {"x": x}, {"axis": 1, "num_outputs": 3}, n_out=3,
                               opset=opset)
    check(model, {"x": x})


def test_expand():
    x = f32(3, 1)
    check(one_node_model("Expand", {"x": x}, inits={"s": i64(2, 1, 4)}), {"x": x})


def test_constant_of_shape_and_range():
    from onnx import numpy_helper


    value = numpy_helper.from_array(np.array([2.5], "float32"))
    model = one_node_model("ConstantOfShape", {}, {"value": value}, inits={"s": i64(2, 3)})
    check(model, {})
    rng = one_node_model("Range", {}, inits={"a": np.array(1, "int64"),
                                             "b": np.array(9, "int64"),
                                             "d": np.array(3, "int64")})
    check(rng, {})



@pytest.mark.parametrize("pads,value", [(i64(0, 1, 2, 0, 1, 0), 0.0),
                                        (i64(1, 0, 0, 1, -1, 2), 1.5)])
def test_pad_constant(pads, value):
    x = f32(2, 3, 4)
    model = one_node_model("Pad", {"x": x}, inits={"p": pads,
                                                   "v": np.array(value, "float32")})
    check(model, {"x": x})


def test_instance_norm():
    x = f32(2, 3, 4, 5)
    model = one_node_model("InstanceNormalization", {"x": x}, {"epsilon": 1e-4},
                           inits={"s": f32(3), "b": f32(3)})
    check(model, {"x": x})
