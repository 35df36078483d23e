"""The default conv2d schedule rule (topi/conv2d_schedule.py): compiled kernels against numpy
over tile-shaped and awkward shapes, strides, dilation, padding and groups."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.te.tensor import tensor_of
from tvmlite.topi.conv2d_schedule import (
    column_reader, conv2d_nchw_nest, host_vector_bits, pick_lanes, pick_tile,
)

# the tile choices below are those for AVX-512 hosts (32 vector registers of 512 bits)
avx512_only = pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")


def conv_ref(x, w, stride, pad, dil, groups):
    """float64 numpy: every window of the padded input, contracted per group."""
    n, c, _, _ = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    win = np.lib.stride_tricks.sliding_window_view(
        xp, (dil[0] * (kh - 1) + 1, dil[1] * (kw - 1) + 1), axis=(2, 3))
    win = win[:, :, ::stride[0], ::stride[1], ::dil[0], ::dil[1]]
    og = o // groups
    parts = [np.einsum("ncyxij,fcij->nfyx", win[:, g * ci:(g + 1) * ci],
                       w[g * og:(g + 1) * og].astype(np.float64)) for g in range(groups)]
    return np.concatenate(parts, axis=1)


def _inputs_of(t):
    """The compute tensors `t` reads, directly."""
    return t.op.input_tensors


def conv(xshape, wshape, stride, pad, dil, groups):
    X = te.placeholder(xshape, "float32", name="X")
    W = te.placeholder(wshape, "float32", name="W")
    return X, W, topi.nn.conv2d_nchw(X, W, stride, pad, dil, groups)


def build_conv(*args):
    X, W, out = conv(*args)
    return out, tvm.build(te.create_prim_func([X, W, out]), target="llvm")


CASES = [  # x shape, w shape, stride, padding, dilation, groups
    ((1, 5, 10, 32), (32, 5, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # 2 channel tiles of 16
    ((2, 3, 9, 20), (24, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # 8 ch x 2 rows, 10 lanes
    ((1, 4, 7, 6), (6, 4, 3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 1),  # stride 2
    ((1, 4, 12, 40), (8, 4, 3, 3), (2, 1), (1, 2, 0, 1), (1, 1), 1),  # asymmetric
    ((1, 3, 13, 23), (8, 3, 3, 3), (2, 3), (1, 1, 1, 1), (1, 2), 1),  # stride 3, dilated
    ((1, 3, 30, 30), (16, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),  # a 7x7 stem
    ((1, 8, 12, 12), (8, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 8),  # depthwise, stride 2
    ((1, 4, 11, 19), (16, 4, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),  # dilation, 19 lanes
    ((1, 8, 9, 9), (8, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),  # groups
    ((1, 16, 14, 28), (16, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 16),  # depthwise
    ((1, 6, 5, 34), (12, 6, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1x1, 3 registers
    ((1, 2, 3, 151), (4, 2, 1, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # no vector
    ((1, 3, 3, 1), (4, 3, 3, 1), (1, 1), (1, 0, 1, 0), (1, 1), 1),  # one column
]


@pytest.mark.parametrize("xs,ws,stride,pad,dil,groups", CASES)
def test_conv2d_rule_matches_numpy(xs, ws, stride, pad, dil, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype("float32")
    w = rng.standard_normal(ws).astype("float32")
    ref = conv_ref(x, w, stride, pad, dil, groups)
    out, kernel = build_conv(xs, ws, stride, pad, dil, groups)
    y = np.zeros(ref.shape, "float32")
    kernel["main"](x, w, y)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


@avx512_only
def test_rule_tiles_and_parallel_loop():
    *_, out = conv((1, 64, 28, 28), (128, 64, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    nest = out.op.nest
    assert nest is not None
    assert dict(nest.split) == {"f": 8, "y": 2, "xx": 14}
    kinds = dict(nest.kinds)
    assert kinds["xx.i"] == "vectorized" and kinds["f.i"] == "unroll"
    assert kinds["f.o"] == "parallel"
    assert list(nest.order) == ["b", "f.o", "y.o", "xx.o", "rc", "ry", "rx", "y.i", "f.i",
                                "xx.i"]


@avx512_only
def test_rule_choices():
    assert [pick_lanes(w) for w in (224, 56, 28, 14, 7, 17, 34, 40, 149)] == \
        [16, 14, 14, 14, 7, 17, 34, 10, 0]
    assert pick_tile(64, 17, 17) == (8, 1) and pick_tile(64, 34, 34) == (2, 2)
    assert pick_tile(512, 28) == (8, 2) and pick_tile(512, 7) == (16, 1)
    assert pick_tile(24, 9) == (8, 1) and pick_tile(24, 10) == (8, 2)
    assert pick_tile(6, 4) == (2, 2)
    assert pick_tile(144, 56, 14, depthwise=True) == (1, 8)
    assert pick_tile(144, 28, 14, depthwise=True) == (1, 4)
    assert pick_lanes(56, 8) == 8 and pick_tile(64, 28, 8, 8) == (8, 2)  # float64


@pytest.mark.parametrize("dtype,out_dtype", [("float64", None), ("int8", "int32"),
                                             ("float16", "float32")])
def test_conv2d_rule_other_dtypes(dtype, out_dtype):
    rng = np.random.default_rng(1)
    x = (rng.random((1, 4, 10, 20)) * 4).astype(dtype)
    w = (rng.random((16, 4, 3, 3)) * 4).astype(dtype)
    X = te.placeholder(x.shape, dtype, name="X")
    W = te.placeholder(w.shape, dtype, name="W")
    out = topi.nn.conv2d_nchw(X, W, (1, 1), (1, 1, 1, 1), (1, 1), 1, out_dtype)
    assert out.op.nest is not None
    y = np.zeros((1, 16, 10, 20), out_dtype or dtype)
    tvm.build(te.create_prim_func([X, W, out]), target="llvm")["main"](x, w, y)
    ref = conv_ref(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    np.testing.assert_allclose(y.astype("float64"), ref, rtol=1e-5, atol=1e-4)


def test_rule_leaves_symbolic_shapes():
    n = te.var("n", "int64")
    X = te.placeholder((n, 4, 8, 8), "float32", name="X")
    W = te.placeholder((8, 4, 3, 3), "float32", name="W")
    out = topi.nn.conv2d_nchw(X, W, (1, 1), (1, 1, 1, 1), (1, 1))
    assert out.op.nest is None and not conv2d_nchw_nest(out)
    X = te.placeholder((1, 2, 3, 151), "float32", name="X")
    out = topi.nn.conv2d_nchw(X, te.placeholder((4, 2, 1, 3), "float32", name="W"), (1, 1),
                              (0, 0, 0, 0), (1, 1))
    assert out.op.nest is None


@avx512_only
def test_rule_two_row_tile_and_strided_window():
    *_, out = conv((2, 3, 10, 20), (24, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    assert list(out.op.nest.order) == ["b", "f.o", "y.o", "xx.o", "rc", "ry", "rx",
                                       "y.i", "f.i", "xx.i"]
    assert dict(out.op.nest.kinds)["rx"] == "unroll"
    *_, out = conv((1, 4, 16, 32), (16, 4, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1)
    kinds = dict(out.op.nest.kinds)
    assert kinds["rx"] == "unroll" and kinds["y.o"] == "parallel"


def test_strided_rows_read_a_phase_split_copy():
    x = te.placeholder((1, 2, 5, 7), "float32", name="X")
    read, contiguous = column_reader(x, 3)
    assert contiguous
    load = read(0, 1, 2, 1, 2)  # x[0, 1, 2, 1 * 3 + 2]
    xq = load.buffer
    assert xq.name == "pad_phase" and [int(d.value) for d in xq.shape] == [1, 2, 5, 3, 3]
    f = te.create_prim_func([x, tensor_of(xq)])
    data = np.arange(70, dtype="float32").reshape(1, 2, 5, 7)
    out = np.zeros((1, 2, 5, 3, 3), "float32")
    tvm.build(f, target="llvm")["main"](data, out)
    cols = np.minimum(np.arange(3)[None, :] * 3 + np.arange(3)[:, None], 6)  # [phase, j]
    np.testing.assert_array_equal(out, data[:, :, :, cols])
    assert column_reader(x, 1)[1]


@avx512_only
def test_depthwise_tiles_rows_strided_ones_over_the_phase_copy():
    *_, out = conv((1, 32, 16, 16), (32, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 32)
    assert dict(out.op.nest.split) == {"y": 8} and "f" in out.op.nest.order
    *_, out = conv((1, 32, 16, 16), (32, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 32)
    assert dict(out.op.nest.kinds)["xx"] == "vectorized"
    phase = next(t for t in _inputs_of(out) if t.op.name == "pad_phase")
    assert list(dict(phase.op.nest.kinds).values()) == ["parallel"]
    *_, out = conv((1, 1, 16, 16), (32, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1)
    assert out.op.nest is not None  # one input channel, not depthwise: channel tiles pay
