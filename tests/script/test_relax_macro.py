"""`@R.macro` (script/relax_macro.py): bindings pasted into the caller, the return value as the
call's value; the parsed function equals the one written out by hand (TVM 0.27 builds the
same), and it runs."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@R.macro
def add_twice(a, b):
    c = R.add(a, b)
    d = R.add(c, b)
    return d


@R.macro(hygienic=False)
def scale(a):
    e = R.multiply(a, k)  # noqa: F821 (the caller's k: not hygienic)
    return e


@I.ir_module
class WithMacros:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: R.Tensor((3,), "float32")):
        y = add_twice(x, k)
        z = scale(y)
        return z


@I.ir_module
class Expanded:
    @R.function
    def main(x: R.Tensor((3,), "float32"), k: R.Tensor((3,), "float32")):
        c = R.add(x, k)
        d = R.add(c, k)
        y = d
        e = R.multiply(y, k)
        z = e
        return z


def test_macro_expands_to_the_written_out_function_and_runs():
    assert_structural_equal(WithMacros, Expanded)
    x, k = np.array([1, 2, 3], "float32"), np.array([2, 2, 2], "float32")
    vm = relax.VirtualMachine(tvm.compile(WithMacros, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x), tvm.nd.array(k)).numpy(),
                               (x + 2 * k) * k)


def test_macro_in_a_dataflow_block():
    @R.function
    def f(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            y = add_twice(x, x)
            R.output(y)
        return y

    names = [b.var.name_hint for b in f.body.blocks[0].bindings]
    assert names == ["c", "d", "y"]


def test_macro_outside_a_function_is_an_error():
    with pytest.raises(RuntimeError, match="only be called inside an @R.function"):
        add_twice(1, 2)
