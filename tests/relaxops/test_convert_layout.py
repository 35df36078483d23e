"""ConvertLayout (conv2d NCHW -> NHWC): TVM's Before/Expected, and numerics preserved."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.convert_layout import ConvertLayout


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((2, 3, 28, 28), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             b: R.Tensor((1, 4, 1, 1), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, out_dtype="float32")
            d = R.add(c, b)
            e = R.nn.relu(d)
            R.output(e)
        return e


def test_conv_add_relu_to_nhwc():
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3, 28, 28), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
                 b: R.Tensor((1, 4, 1, 1), "float32")):
            with R.dataflow():
                lv = R.permute_dims(x, axes=[0, 2, 3, 1])
                lv1 = R.permute_dims(w, axes=[0, 2, 3, 1])
                c = R.nn.conv2d(lv, lv1, data_layout="NHWC", kernel_layout="OHWI",
                                out_dtype="float32")
                lv2 = R.permute_dims(b, axes=[0, 2, 3, 1])
                d = R.add(c, lv2)
                lv3 = R.nn.relu(d)
                e = R.permute_dims(lv3, axes=[0, 3, 1, 2])
                R.output(e)
            return e

    after = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Before)
    assert_structural_equal(after, Expected)


@pytest.mark.parametrize("kernel", ["OHWI", "HWIO", "default"])
def test_converted_program_computes_the_same(kernel):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32")
            for s in ((2, 3, 28, 28), (4, 3, 3, 3), (1, 4, 1, 1))]

    def run(mod):
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
        return vm["main"](*args).numpy()

    after = ConvertLayout({"relax.nn.conv2d": ["NHWC", kernel]})(Before)
    np.testing.assert_allclose(run(after), run(Before), rtol=1e-5, atol=1e-5)


def test_value_used_by_an_unconverted_op_is_transposed_back():
    @I.ir_module
    class Mixed:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((2, 2, 1, 1), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                s = R.reshape(c, (1, 32))
                R.output(s)
            return s

    after = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Mixed)
    ops = [(b.value.op.name, b.value.attrs) for b in after["main"].body.blocks[0].bindings]
    assert [n for n, _ in ops] == ["relax.permute_dims", "relax.permute_dims", "relax.nn.conv2d",
                                   "relax.permute_dims", "relax.reshape"]
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((1, 2, 4, 4)).astype("float32"), \
        rng.standard_normal((2, 2, 1, 1)).astype("float32")
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    ref = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0]).reshape(1, 32)
    np.testing.assert_allclose(vm["main"](x, w).numpy(), ref, rtol=1e-5)


def test_axis_attributes_are_renumbered_for_nhwc():
    # apache-tvm 0.27's output: softmax over C runs on axis 3 of the NHWC tensor; the sum over
    # H and W reads axes 1 and 2 and gives (N, C) in its original order (no transpose back)
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
            with R.dataflow():
                y = R.nn.conv2d(x, w, out_dtype="float32")
                s = R.nn.softmax(y, axis=1)
                gv = R.sum(s, axis=[2, 3])
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
            with R.dataflow():
                lv = R.permute_dims(x, axes=[0, 2, 3, 1])
                lv1 = R.permute_dims(w, axes=[0, 2, 3, 1])
                y = R.nn.conv2d(lv, lv1, data_layout="NHWC", kernel_layout="OHWI",
                                out_layout="NHWC", out_dtype="float32")
                s = R.nn.softmax(y, axis=3)
                gv = R.sum(s, axis=[1, 2])
                R.output(gv)
            return gv

    after = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Before)
    assert_structural_equal(after, Expected)


def test_tile_and_repeat_follow_nhwc_and_keep_the_values():
    # TVM's forms: tile repeats right-aligned to 4 axes then reordered for NHWC; repeat's axis
    # renumbered; the results match numpy
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((3, 2, 1, 1), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                t = R.tile(c, repeats=[2, 1])
                gv = R.repeat(t, repeats=2, axis=1)
                R.output(gv)
            return gv

    after = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Mod)
    calls = {b.value.op.name: b.value for b in after["main"].body.blocks[0].bindings}
    assert tuple(calls["relax.tile"].attrs["repeats"]) == (1, 2, 1, 1)
    assert calls["relax.repeat"].attrs["axis"] == 3
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 4, 4)).astype("float32")
    w = rng.standard_normal((3, 2, 1, 1)).astype("float32")
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    conv = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])
    ref = np.repeat(np.tile(conv, (2, 1)), 2, axis=1)
    np.testing.assert_allclose(vm["main"](x, w).numpy(), ref, rtol=1e-5)
