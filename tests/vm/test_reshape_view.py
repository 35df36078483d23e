"""Reshape-like operators run as views in the default build (ReshapeAsView): the printed
rewrite, results against numpy on the reference and fast paths, and the arena keeping a
view's memory alive as long as the view is used."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.transforms.reshape_view import ReshapeAsView

RNG = np.random.default_rng(2)


@I.ir_module
class Shapes:
    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            v = R.reshape(a, (24,))  # a view of a's memory...
            b = R.multiply(x, x)  # ...which b must not be planned into: v is still live
            c = R.flatten(b)
            d = R.add(v, c)
            e = R.expand_dims(d, axis=0)
            f = R.squeeze(e, axis=[0])
            R.output(f)
        return f


@I.ir_module
class ReturnsInputView:
    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        with R.dataflow():
            y = R.reshape(x, (2, 3, 4))
            R.output(y)
        return y


@I.ir_module
class Symbolic:
    @R.function
    def main(x: R.Tensor(("n", 6), "float32")):
        n = T.int64()
        with R.dataflow():
            y = R.reshape(R.add(x, x), (n * 2, 3))
            R.output(y)
        return y


def vm_of(mod):
    return relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


def test_reshape_ops_become_view_calls() -> None:
    text = ReshapeAsView()(Shapes).script()
    assert text.count('R.call_pure_packed("vm.builtin.reshape"') == 4
    for op in ("R.reshape", "R.flatten", "R.expand_dims", "R.squeeze"):
        assert op + "(" not in text


def test_views_compute_as_copies_would() -> None:
    vm = vm_of(Shapes)
    assert getattr(vm["main"], "fast_path", None) == "static"
    for _ in range(3):  # the arena is reused across calls
        x = RNG.standard_normal((4, 6)).astype("float32")
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(),
                                   (x + x).reshape(24) + (x * x).reshape(24), rtol=1e-6)


def test_a_view_of_an_input_is_returned_as_tvm_does() -> None:
    x = RNG.standard_normal((4, 6)).astype("float32")
    y = vm_of(ReturnsInputView)["main"](tvm.nd.array(x))
    assert y.shape == (2, 3, 4)
    np.testing.assert_array_equal(y.numpy(), x.reshape(2, 3, 4))


def test_symbolic_shapes() -> None:
    vm = vm_of(Symbolic)
    for n in (1, 5):
        x = RNG.standard_normal((n, 6)).astype("float32")
        np.testing.assert_array_equal(vm["main"](tvm.nd.array(x)).numpy(),
                                      (x + x).reshape(n * 2, 3))
