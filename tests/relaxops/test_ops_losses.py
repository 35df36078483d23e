"""Losses, conv1d_transpose, attention_bias and reverse_sequence against torch / numpy."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from op_helpers import rand, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops import OpError

R = relax.op
T = torch.from_numpy


def test_cross_entropy_with_logits():
    x, y = rand(4, 5), rand(4, 5)
    out = run_graph(R.nn.cross_entropy_with_logits, [x, y])
    np.testing.assert_allclose(out, -(x * y).sum() / 4, rtol=1e-5)
    v, w = rand(5), rand(5)
    np.testing.assert_allclose(run_graph(R.nn.cross_entropy_with_logits, [v, w]),
                               -(v * w).sum(), rtol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    x = rand(3, 4, 2)
    t = np.array([[0, 3], [-100, 1], [2, 2]], "int64")
    w = np.abs(rand(4)) + 0.1
    args = [x, t, w] if weighted else [x, t]
    out = run_graph(lambda *a: R.nn.nll_loss(*a, reduction=reduction), args)
    ref = F.nll_loss(T(x), T(t), weight=T(w) if weighted else None, reduction=reduction)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stride,pad,out_pad,dil", [(1, 0, 0, 1), (2, 1, 1, 1), (3, 2, 0, 2)])
def test_conv1d_transpose(stride, pad, out_pad, dil):
    a, w = rand(2, 4, 6), rand(4, 3, 3)
    out = run_graph(lambda x, y: R.nn.conv1d_transpose(x, y, stride, pad, out_pad, dil), [a, w])
    ref = F.conv_transpose1d(T(a), T(w), None, stride, pad, out_pad, 1, dil)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_attention_bias_matches_attention():
    q, k, v, bias = rand(1, 3, 2, 4), rand(1, 5, 2, 4), rand(1, 5, 2, 4), rand(1, 2, 3, 5)
    a = run_graph(lambda *xs: R.nn.attention_bias(*xs), [q, k, v, bias])
    b = run_graph(lambda *xs: R.nn.attention(*xs), [q, k, v, bias])
    np.testing.assert_allclose(a, b, rtol=1e-6)
    tq, tk, tv = (T(t).transpose(1, 2) for t in (q, k, v))
    ref = ((tq @ tk.transpose(-1, -2) / 2.0 + T(bias)).softmax(-1) @ tv).transpose(1, 2)
    np.testing.assert_allclose(a, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_reverse_sequence():
    a = rand(3, 5, 2)
    lens = np.array([5, 2, 0], "int32")
    out = run_graph(lambda x, n: R.reverse_sequence(x, n, 1, 0), [a, lens])
    ref = a.copy()
    for b, n in enumerate(lens):
        ref[b, :n] = a[b, :n][::-1]
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("build,shapes,dtypes", [
    (lambda x, t: R.nn.nll_loss(x, t, reduction="sum"), [(3, 4), (3,)], ["float32", "int64"]),
    (lambda x, w: R.nn.conv1d_transpose(x, w, 2), [(1, 2, 4), (2, 3, 3)], None),
    (lambda x, n: R.reverse_sequence(x, n), [(2, 3), (2,)], ["float32", "int32"]),
], ids=["nll_loss", "conv1d_transpose", "reverse_sequence"])
def test_roundtrip(build, shapes, dtypes):
    roundtrip(build, shapes, dtypes)


def test_errors():
    x = relax.Var("x", relax.TensorStructInfo((3, 4), "float32"))
    t = relax.Var("t", relax.TensorStructInfo((2,), "int64"))
    with pytest.raises(OpError, match=r"targets \(2,\) do not fit predictions \(3, 4\)"):
        R.nn.nll_loss(x, t)
    with pytest.raises(OpError, match="reduction must be mean, sum or none"):
        R.nn.nll_loss(x, relax.Var("u", relax.TensorStructInfo((3,), "int64")),
                      reduction="max")


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
def test_scatter_nd(reduction):
    a = rand(3, 4)
    ind = np.array([[1, 2], [0, 0], [1, 2]], "int64")
    upd = rand(3)
    ref = a.copy()
    fold = {"update": lambda o, u: u, "add": np.add, "mul": np.multiply, "min": np.minimum,
            "max": np.maximum}[reduction]
    for (r, c_), u in zip(ind, upd):
        ref[r, c_] = fold(ref[r, c_], u)
    out = run_graph(lambda x, i, u: R.scatter_nd(x, i, u, reduction), [a, ind, upd])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    new_rows = rand(2, 4)
    rows = run_graph(lambda x, i, u: R.scatter_nd(x, i, u),
                     [a, np.array([[2], [0]], "int64"), new_rows])
    np.testing.assert_array_equal(rows, np.stack([new_rows[1], a[1], new_rows[0]]))


@pytest.mark.parametrize("periodic", [True, False])
def test_hamming_window(periodic):
    zero = np.zeros(8, "float32")
    out = run_graph(lambda x: R.add(R.hamming_window(8, periodic, 0.54, 0.46, "float32"), x),
                    [zero])
    ref = torch.hamming_window(8, periodic=periodic, alpha=0.54, beta=0.46).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
