"""RelaxToPyFuncConverter: Relax functions run as PyTorch code. Each converted function is
checked against the same function compiled and run by our VM (and numpy where simpler)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.relax_to_pyfunc_converter import RelaxToPyFuncConverter
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

torch = pytest.importorskip("torch")


@I.ir_module
class Net:
    @T.prim_func
    def scale(a: T.handle, b: T.handle):
        n = T.int64()
        x = T.match_buffer(a, (n,), "float32")
        y = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("s"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi] * T.float32(3)

    @R.function
    def cnn(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
            g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=1, strides=2)
            n = R.nn.layer_norm(c, g, b, axes=[-1])
            p = R.nn.max_pool2d(R.nn.relu(n), pool_size=(2, 2), strides=(2, 2))
            f = R.reshape(p, (2, 16))
            s = R.nn.softmax(R.sum(f, axis=[1], keepdims=True) * f, axis=-1)
            R.output(s)
        return s

    @R.function
    def dynamic(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32"),
                z: R.Tensor((4,), "float32")):
        n = T.int64()
        cls = Net
        s = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((n,), "float32"))
        parts = R.split(z, indices_or_sections=2, axis=0)
        tail = R.expand_dims(R.strided_slice(y, axes=[0], begin=[1], end=[n]), 0)
        return (R.add(s, y), parts[1], tail)


def _vm_run(name, *args):
    vm = relax.VirtualMachine(tvm.compile(Net, "llvm"), tvm.cpu())
    return vm[name](*(tvm.runtime.tensor(a) for a in args))


def test_a_cnn_runs_as_pytorch_like_on_our_vm():
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 3, 8, 8), (4, 3, 3, 3),
                                                              (4,), (4,))]
    func = RelaxToPyFuncConverter(Net).convert("cnn").pyfuncs["cnn"]
    got = func(*(torch.from_numpy(a) for a in args))
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (2, 16)
    np.testing.assert_allclose(got.numpy(), _vm_run("cnn", *args).numpy(), rtol=1e-4, atol=1e-5)


def test_symbolic_dims_come_from_the_arguments():
    func = RelaxToPyFuncConverter(Net).convert(["dynamic"]).pyfuncs["dynamic"]
    x, y, z = np.arange(6, dtype="float32"), np.ones(6, "float32"), np.arange(4, dtype="float32")
    total, half, tail = func(*(torch.from_numpy(a) for a in (x, y, z)))
    np.testing.assert_allclose(total.numpy(), x * 3 + y)  # call_tir ran our kernel, n = 6
    np.testing.assert_allclose(half.numpy(), z[2:])
    assert tuple(tail.shape) == (1, 5)
    expected = _vm_run("dynamic", x, y, z)
    for got, want in zip((total, half, tail), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy())


def test_packed_functions_by_destination_or_by_result():
    tvm.register_func("test_conv_double_into", lambda x, out: out.copyfrom(x.numpy() * 2),
                      override=True)
    tvm.register_func("test_conv_half", lambda x: tvm.runtime.tensor(x.numpy() / 2),
                      override=True)

    @I.ir_module
    class Packed:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            d = R.call_dps_packed("test_conv_double_into", (x,), out_ty=R.Tensor((3,), "float32"))
            h = R.call_dps_packed("test_conv_half", (d,), out_ty=R.Tensor((3,), "float32"))
            return R.multiply(d, h)

    x = torch.tensor([1.0, 2.0, 3.0])
    got = RelaxToPyFuncConverter(Packed).convert("main").pyfuncs["main"](x)
    np.testing.assert_allclose(got.numpy(), (x * 2 * x).numpy())


def test_errors_and_the_op_map():
    converted = RelaxToPyFuncConverter(Net).convert("cnn")
    with pytest.raises(ValueError, match="Expected 4 arguments, got 1"):
        converted.pyfuncs["cnn"](torch.zeros(1))
    with pytest.raises(ValueError, match="'nope' not found"):
        RelaxToPyFuncConverter(Net).convert("nope")
    op_map = RelaxToPyFuncConverter._get_op_map()
    assert op_map["relax.nn.conv2d"] == "F.conv2d" and op_map["relax.add"] == "torch.add"
    from tvmlite.ir.op import list_ops

    missing = [name for name in op_map if name not in list_ops()]
    assert missing == []  # every entry names an operator that exists
