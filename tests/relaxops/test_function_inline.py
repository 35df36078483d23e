"""`Function.inline_functions`: calls replaced by the callee's bindings, with fresh variables,
the caller's symbolic dims, nested calls inlined, dataflow blocks split where needed."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            b = R.multiply(a, a)
            c = Module.widen(b)
            d = Module.widen_again(c)
            R.output(d)
        return d

    @R.function(private=True)
    def widen(x: R.Tensor(("k", 4), "float32")) -> R.Tensor(("k", 8), "float32"):
        y = R.concat([x, x], axis=1)
        return y

    @R.function(private=True)
    def widen_again(x: R.Tensor(("k", 8), "float32")) -> R.Tensor(("k", 8), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            z = Module.scale(y)
            R.output(z)
        return z

    @R.function(private=True)
    def scale(x: R.Tensor(("k", 8), "float32")) -> R.Tensor(("k", 8), "float32"):
        with R.dataflow():
            y = R.multiply(x, R.const(3.0, "float32"))
            R.output(y)
        return y


def test_inlined_structure_uses_the_callers_dims_and_splits_the_dataflow_block():
    @R.function(private=True)
    def expected(a: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            b = R.multiply(a, a)
            R.output(b)
        c = R.concat([b, b], axis=1)
        with R.dataflow():
            y = R.add(c, c)
            d = R.multiply(y, R.const(3.0, "float32"))
            R.output(d)
        return d

    names = {"widen": Module["widen"], "widen_again": Module["widen_again"],
             Module.get_global_var("scale"): Module["scale"]}
    after = Module["main"].inline_functions(names)
    assert_structural_equal(after.without_attr("global_symbol"), expected)
    a = np.random.rand(3, 4).astype("float32")
    mod = tvm.IRModule({"main": after})
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a)).numpy(),
                               np.concatenate([a * a] * 2, axis=1) * 6, rtol=1e-6)


def test_ambiguous_names_and_recursion_are_refused():
    with pytest.raises(ValueError, match="given twice"):
        Module["main"].inline_functions({"widen": Module["widen"],
                                         tvm.ir.GlobalVar("widen"): Module["widen"]})

    @I.ir_module
    class Recursive:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = Recursive.again(x)
            return y

        @R.function(private=True)
        def again(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = Recursive.again(x)
            return y

    with pytest.raises(ValueError, match="calls itself"):
        Recursive["main"].inline_functions({"again": Recursive["again"]})
