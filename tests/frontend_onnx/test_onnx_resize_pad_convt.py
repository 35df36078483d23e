"""ConvTranspose, Resize (nearest and linear) and Pad's reflect/edge modes against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx_check import check, one_node_model  # noqa: E402

RNG = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("attrs,w_shape", [
    ({"strides": [2, 2], "pads": [1, 1, 1, 1]}, (4, 3, 3, 3)),
    ({"strides": [2, 2], "output_padding": [1, 1]}, (4, 3, 3, 3)),
    ({"strides": [2, 1], "dilations": [2, 1], "pads": [0, 1, 1, 0]}, (4, 3, 3, 2)),
    ({"group": 2, "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"auto_pad": "SAME_UPPER", "strides": [2, 2]}, (4, 3, 3, 3)),
    ({"auto_pad": "SAME_LOWER", "strides": [2, 2]}, (4, 3, 4, 4)),
    ({"output_shape": [11, 11], "strides": [2, 2]}, (4, 3, 3, 3)),
], ids=["pads", "output_padding", "dilation", "groups", "same_upper", "same_lower",
        "output_shape"])
def test_conv_transpose(attrs, w_shape):
    x = f32(2, 4, 5, 5)
    out_channels = w_shape[1] * attrs.get("group", 1)
    model = one_node_model("ConvTranspose", {"x": x}, attrs,
                           inits={"w": f32(*w_shape), "b": f32(out_channels)})
    check(model, {"x": x})


def _resize(x, mode, coords, rounding, scales=None, sizes=None, axes=None, opset=13):
    attrs = {"mode": mode, "coordinate_transformation_mode": coords}
    if mode == "nearest":
        attrs["nearest_mode"] = rounding
    if axes is not None:
        attrs["axes"] = axes
    inits = {"roi": np.zeros(0, "float32"),
             "scales": np.zeros(0, "float32") if scales is None else np.array(scales, "float32")}
    if sizes is not None:
        inits["sizes"] = np.array(sizes, "int64")
    return one_node_model("Resize", {"x": x}, attrs, inits=inits, opset=opset)


COORDS = ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"]


@pytest.mark.parametrize("coords", COORDS)
@pytest.mark.parametrize("mode,rounding", [("linear", ""), ("nearest", "round_prefer_floor"),
                                           ("nearest", "round_prefer_ceil"),
                                           ("nearest", "floor"), ("nearest", "ceil")])
def test_resize_2d(mode, rounding, coords):
    x = f32(1, 2, 5, 6)
    check(_resize(x, mode, coords, rounding, scales=[1, 1, 2, 1.5]), {"x": x})  # up
    check(_resize(x, mode, coords, rounding, sizes=[1, 2, 3, 8]), {"x": x})  # down and up
    check(_resize(x, mode, coords, rounding, sizes=[1, 2, 7, 1]), {"x": x})  # to one column


def test_resize_opset18_axes():
    x = f32(1, 2, 5, 6)
    check(_resize(x, "linear", "half_pixel", "", scales=[2, 0.5], axes=[2, 3], opset=18),
          {"x": x})
    check(_resize(x, "linear", "half_pixel", "", sizes=[9], axes=[-1], opset=18), {"x": x})


@pytest.mark.parametrize("coords,rounding", [("asymmetric", "floor"),
                                             ("half_pixel", "round_prefer_floor")])
def test_resize_nearest_whole_factors_on_any_axes(coords, rounding):
    x = f32(2, 3, 4)
    check(_resize(x, "nearest", coords, rounding, scales=[1, 2, 3]), {"x": x})


def test_resize_unsupported_is_a_clear_error():
    from tvmlite.frontend.onnx import from_onnx

    with pytest.raises(NotImplementedError, match="fractional sizes; give `sizes`"):
        from_onnx(_resize(f32(1, 2, 5, 6), "linear", "half_pixel", "", scales=[1, 1, 1.5, 1]))
    with pytest.raises(NotImplementedError, match="Resize mode 'cubic'"):
        from_onnx(_resize(f32(1, 2, 5, 6), "cubic", "half_pixel", "", scales=[1, 1, 2, 2]))


@pytest.mark.parametrize("mode", ["reflect", "edge"])
def test_pad_reflect_and_edge(mode):
    x = f32(2, 3, 4)
    check(one_node_model("Pad", {"x": x}, {"mode": mode},
                         inits={"p": np.array([0, 1, 2, 1, 2, 3], "int64")}), {"x": x})
    axes_only = one_node_model("Pad", {"x": x}, {"mode": mode},
                               inits={"p": np.array([1, 3], "int64"),
                                      "v": np.array(0, "float32"),
                                      "a": np.array([-1], "int64")}, opset=18)
    check(axes_only, {"x": x})
