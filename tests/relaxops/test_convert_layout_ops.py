"""ConvertLayout through pooling, resize, batch_norm, split and the scatter / gather family:
the operators run in NHWC (their axes renumbered, indices transposed with the data) and the
results match numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import expr as rx
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.transforms.convert_layout import ConvertLayout

RNG = np.random.default_rng(0)
X = RNG.standard_normal((1, 2, 4, 4)).astype("float32")
W = RNG.standard_normal((4, 2, 1, 1)).astype("float32")
CONV = np.einsum("nchw,oc->nohw", X, W[:, :, 0, 0])  # the 1x1 convolution, NCHW
NHWC = {"relax.nn.conv2d": ["NHWC", "OHWI"]}


def run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a) for a in args])
    return tuple(o.numpy() for o in out) if isinstance(out, tuple) else out.numpy()


def calls(mod):
    return {b.value.op.name: b.value for b in mod["main"].body.blocks[0].bindings
            if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op)}


def test_max_pool_runs_in_nhwc():
    @I.ir_module
    class Pool:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((4, 2, 1, 1), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                gv = R.nn.max_pool2d(c, pool_size=[2, 2], strides=[2, 2])
                R.output(gv)
            return gv

    after = ConvertLayout(NHWC)(Pool)
    assert calls(after)["relax.nn.max_pool2d"].attrs["layout"] == "NHWC"
    want = CONV.reshape(1, 4, 2, 2, 2, 2).max(axis=(3, 5))
    np.testing.assert_allclose(run(after, X, W), want, rtol=1e-5)


def test_resize_asked_for_in_nhwc_transposes_its_input():
    @I.ir_module
    class Resize:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32")):
            with R.dataflow():
                gv = R.image.resize2d(x, (8, 8), layout="NCHW", method="nearest_neighbor")
                R.output(gv)
            return gv

    after = ConvertLayout({"relax.image.resize2d": ["NHWC"]})(Resize)
    ops = [b.value.op.name for b in after["main"].body.blocks[0].bindings]
    assert ops == ["relax.permute_dims", "relax.image.resize2d", "relax.permute_dims"]
    np.testing.assert_allclose(run(after, X), X.repeat(2, axis=2).repeat(2, axis=3))


def test_tuple_results_give_back_each_field_in_its_layout():
    @I.ir_module
    class Split:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((4, 2, 1, 1), "float32"),
                 gamma: R.Tensor((4,), "float32"), mean: R.Tensor((4,), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                bn = R.nn.batch_norm(c, gamma, gamma, mean, gamma, axis=1, training=False)
                y = R.nn.relu(bn[0])
                gv = R.split(y, indices_or_sections=2, axis=1)
                R.output(gv)
            return gv

    after = ConvertLayout(NHWC)(Split)
    assert calls(after)["relax.nn.batch_norm"].attrs["axis"] == 3
    assert calls(after)["relax.split"].attrs["axis"] == 3
    gamma = np.array([1.0, 2.0, 0.5, 1.5], "float32")
    mean = np.array([0.1, -0.2, 0.3, 0.0], "float32")
    g = gamma[None, :, None, None]
    y = np.maximum((CONV - mean[None, :, None, None]) / np.sqrt(g + 1e-5) * g + g, 0)
    got = run(after, X, W, gamma, mean)
    np.testing.assert_allclose(got[0], y[:, :2], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], y[:, 2:], rtol=1e-4, atol=1e-5)


def test_scatter_and_gather_move_their_indices_with_the_data():
    @I.ir_module
    class Index:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((4, 2, 1, 1), "float32"),
                 idx: R.Tensor((1, 4, 4, 4), "int64")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                g = R.gather_elements(c, idx, axis=1)
                gv = R.scatter_elements(c, idx, g, axis=1)
                R.output(gv)
            return gv

    after = ConvertLayout(NHWC)(Index)
    assert calls(after)["relax.gather_elements"].attrs["axis"] == 3
    idx = RNG.integers(0, 4, (1, 4, 4, 4)).astype("int64")
    gathered = np.take_along_axis(CONV, idx, axis=1)
    want = CONV.copy()
    np.put_along_axis(want, idx, gathered, axis=1)
    np.testing.assert_allclose(run(after, X, W, idx), want, rtol=1e-5)


def test_conv2d_left_in_its_layout_takes_the_inferred_struct_info():
    @I.ir_module
    class Odd:
        @R.function
        def main(x: R.Tensor("float32", ndim=4), w: R.Tensor((4, 15, 1, 1), "float32")):
            n, h, wd = T.int64(), T.int64(), T.int64()
            with R.dataflow():
                x1 = R.match_cast(x, R.Tensor((n, 15, h, wd), "float32"))
                gv: R.Tensor("float32", ndim=4) = R.nn.conv2d(x1, w)
                R.output(gv)
            return gv

    # 15 channels do not split into blocks of 4: the conv2d stays NCHW
    after = ConvertLayout({"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]})(Odd)
    conv = after["main"].body.blocks[0].bindings[-1]
    assert conv.value.attrs["data_layout"] == "NCHW"
    n = after["main"].body.blocks[0].bindings[0].var.struct_info.shape[0]
    shape = conv.var.struct_info.shape  # was ndim=4 only: now (n, 4, h, wd)
    assert shape[0] is n and getattr(shape[1], "value", shape[1]) == 4
    assert after["main"].body.body is conv.var


def test_expand_dims_keeps_its_axes_and_squeeze_finds_them_again():
    @I.ir_module
    class Expand:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((4, 2, 1, 1), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                e = R.expand_dims(c, axis=[-3, 1])  # (1, 1, 4, 1, 4, 4)
                s = R.squeeze(e, axis=[1, 3])
                gv = (e, R.nn.relu(s))
                R.output(gv)
            return gv

    after = ConvertLayout(NHWC)(Expand)
    ops = calls(after)
    assert [int(a) for a in ops["relax.expand_dims"].attrs["axis"]] == [-3, 1]
    assert [int(a) for a in ops["relax.squeeze"].attrs["axis"]] == [1, 3]
    assert ops["relax.nn.relu"].args[0].struct_info.shape[3].value == 4  # relu in NHWC
    expanded, relu = run(after, X, W)
    np.testing.assert_allclose(expanded, np.expand_dims(CONV, (3, 1)), rtol=1e-5)
    np.testing.assert_allclose(relu, np.maximum(CONV, 0), rtol=1e-5)
