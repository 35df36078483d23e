"""The newer `R.nn` operators and `image.resize2d` against torch (and numpy)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from op_helpers import rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops import OpError
from tvmlite.ir.ops.nn_ext import resize2d

R = relax.op
T = torch.from_numpy


def close(out, ref, tol=1e-4):
    np.testing.assert_allclose(out, ref.numpy() if hasattr(ref, "numpy") else ref, rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("mode,tmode", [("constant", "constant"), ("edge", "replicate"),
                                        ("reflect", "reflect")])
def test_pad(mode, tmode):
    a = rand(2, 3, 5)
    out = run_graph(lambda x: R.nn.pad(x, (0, 0, 1, 2, 2, 1), mode, 0.5), [a])
    ref = F.pad(T(a), (2, 1, 1, 2), mode=tmode, **({"value": 0.5} if mode == "constant" else {}))
    close(out, ref)


@pytest.mark.parametrize("stride,pad,dil,groups", [(1, 0, 1, 1), (2, 1, 2, 1), (1, 2, 1, 2)])
def test_conv1d(stride, pad, dil, groups):
    a, w = rand(2, 4, 11), rand(6, 4 // groups, 3)
    out = run_graph(lambda x, y: R.nn.conv1d(x, y, stride, pad, dil, groups), [a, w])
    close(out, F.conv1d(T(a), T(w), None, stride, pad, dil, groups))


@pytest.mark.parametrize("stride,pad,out_pad,dil,groups", [
    ((1, 1), (0, 0), (0, 0), (1, 1), 1), ((2, 2), (1, 1), (1, 0), (1, 1), 1),
    ((2, 1), (0, 1), (0, 0), (2, 1), 2)])
def test_conv2d_transpose(stride, pad, out_pad, dil, groups):
    a, w = rand(1, 4, 5, 6), rand(4, 3, 3, 2)
    out = run_graph(lambda x, y: R.nn.conv2d_transpose(x, y, stride, pad, out_pad, dil, groups),
                    [a, w])
    close(out, F.conv_transpose2d(T(a), T(w), None, stride, pad, out_pad, groups, dil))


def test_group_and_instance_norm():
    a, g, b = rand(2, 6, 4, 5), rand(6), rand(6)
    out = run_graph(lambda x, y, z: R.nn.group_norm(x, y, z, 3, 1, [2, 3]), [a, g, b])
    close(out, F.group_norm(T(a), 3, T(g), T(b), 1e-5))
    out = run_graph(lambda x, y, z: R.nn.instance_norm(x, y, z, 1, [2, 3]), [a, g, b])
    close(out, F.instance_norm(T(a), weight=T(g), bias=T(b), eps=1e-5))


@pytest.mark.parametrize("causal", [None, "TopLeft", "BottomRight"])
def test_attention(causal):
    q, k, v = rand(2, 3, 2, 4), rand(2, 5, 2, 4), rand(2, 5, 2, 6)
    out = run_graph(lambda a, b, c: R.nn.attention(a, b, c, causal_mask=causal), [q, k, v])
    tq, tk, tv = (T(t).transpose(1, 2) for t in (q, k, v))
    scores = tq @ tk.transpose(-1, -2) / 2.0
    if causal:
        offset = 0 if causal == "TopLeft" else 5 - 3
        mask = torch.arange(5)[None, :] > torch.arange(3)[:, None] + offset
        scores = scores.masked_fill(mask, float("-inf"))
    close(out, (scores.softmax(-1) @ tv).transpose(1, 2))


def test_attention_bias_and_scale():
    q, k, v, bias = rand(1, 3, 2, 4), rand(1, 3, 2, 4), rand(1, 3, 2, 4), rand(1, 2, 3, 3)
    out = run_graph(lambda a, b, c, d: R.nn.attention(a, b, c, d, scale=0.3), [q, k, v, bias])
    tq, tk, tv = (T(t).transpose(1, 2) for t in (q, k, v))
    ref = ((tq @ tk.transpose(-1, -2) * 0.3 + T(bias)).softmax(-1) @ tv).transpose(1, 2)
    close(out, ref)


def test_pool1d():
    a = rand(2, 3, 9)
    close(run_graph(lambda x: R.nn.max_pool1d(x, 3, 2, (1, 1)), [a]),
          F.max_pool1d(T(a), 3, 2, 1))
    close(run_graph(lambda x: R.nn.avg_pool1d(x, 2, 2), [a]), F.avg_pool1d(T(a), 2, 2))
    close(run_graph(lambda x: R.nn.adaptive_avg_pool1d(x, 4), [a]),
          F.adaptive_avg_pool1d(T(a), 4))


def test_pixel_shuffle_and_batch_flatten():
    a = rand(2, 8, 3, 4)
    close(run_graph(lambda x: R.nn.pixel_shuffle(x, 2), [a]), F.pixel_shuffle(T(a), 2))
    close(run_graph(R.nn.batch_flatten, [a], shapes=[("n", 8, 3, 4)]), a.reshape(2, -1))


@pytest.mark.parametrize("method,coords,tmode,align", [
    ("linear", "half_pixel", "bilinear", False), ("linear", "align_corners", "bilinear", True),
    ("nearest_neighbor", "asymmetric", "nearest", None)])
def test_resize2d(method, coords, tmode, align):
    a = rand(1, 2, 4, 5)
    out = run_graph(lambda x: resize2d(x, (7, 3), method=method,
                                         coordinate_transformation_mode=coords,
                                         rounding_method="floor"), [a])
    kw = {} if align is None else {"align_corners": align}
    close(out, F.interpolate(T(a), size=(7, 3), mode=tmode, **kw))


@pytest.mark.parametrize("build,shapes", [
    (lambda x: R.nn.pad(x, (1, 1, 0, 2), "reflect"), [(3, 4)]),
    (lambda x, w: R.nn.conv1d(x, w, 2, 1), [(1, 2, 8), (3, 2, 3)]),
    (lambda x, w: R.nn.conv2d_transpose(x, w, 2, 1, 1), [(1, 2, 4, 4), (2, 3, 3, 3)]),
    (lambda x, g, b: R.nn.group_norm(x, g, b, 2, 1, [2]), [(1, 4, 5), (4,), (4,)]),
    (lambda q, k, v: R.nn.attention(q, k, v, causal_mask="TopLeft"),
     [(1, 3, 2, 4), (1, 3, 2, 4), (1, 3, 2, 4)]),
    (lambda x: R.nn.avg_pool1d(x, 2), [(1, 2, 6)]),
    (lambda x: resize2d(x, (8, 8)), [(1, 2, 4, 4)]),
], ids=["pad", "conv1d", "conv2d_transpose", "group_norm", "attention", "avg_pool1d",
        "resize2d"])
def test_roundtrip(build, shapes):
    roundtrip(build, shapes)


def test_errors():
    x = relax.Var("x", relax.TensorStructInfo((1, 6, 4, 4), "float32"))
    v = relax.Var("v", relax.TensorStructInfo((6,), "float32"))
    with pytest.raises(OpError, match="6 channels do not split into 4 groups"):
        R.nn.group_norm(x, v, v, 4, 1, [2, 3])
    with pytest.raises(OpError, match="pad_width has 2 numbers"):
        R.nn.pad(x, (1, 1))
    w = relax.Var("w", relax.TensorStructInfo((5, 2, 3), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((1, 4, 8), "float32"))
    with pytest.raises(OpError, match=r"data has \(4,\) channels"):
        R.nn.conv1d(y, w)
    with pytest.raises(OpError, match="method must be one of"):
        resize2d(x, (2, 2), method="cubic")
