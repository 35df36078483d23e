# ruff: noqa: F841 (TVMScript bindings the passes under test must see)
"""ConvertToDataflow and TopologicalSort (transforms/dataflow_passes.py): Before/Expected."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def test_convert_to_dataflow_splits_at_impure_calls_and_merges_short_runs():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            with R.dataflow():
                z = R.add(x, y)
                R.output(z)
            w = R.multiply(z, y)  # one pure binding, merged into the block before it
            _ = R.print(format="between")
            a = R.add(w, w)
            b = R.subtract(a, x)
            return b

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            with R.dataflow():
                z = R.add(x, y)
                w = R.multiply(z, y)
                R.output(w)
            _ = R.print(format="between")
            with R.dataflow():
                a = R.add(w, w)
                b = R.subtract(a, x)
                R.output(b)
            return b

    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Expected)


def test_convert_to_dataflow_leaves_single_bindings():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.add(x, x)
            return y

    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Before)
    assert relax.transform.ConvertToDataflow(min_size=1)(Before)["main"].body.blocks[0] \
        .__class__ is relax.DataflowBlock


@I.ir_module
class Diamond:
    @R.function
    def main(a: R.Tensor((4,), "float32")):
        with R.dataflow():
            b1 = R.add(a, R.const(1, "float32"))
            b2 = R.add(a, R.const(2, "float32"))
            c1 = R.multiply(a, b1)
            c2 = R.multiply(a, b2)
            d = R.subtract(c1, c2)
            R.output(d)
        return d


def _order(mod):
    return [float(b.value.args[1].data.numpy()) if isinstance(b.value.args[1], relax.Constant)
            else b.value.op.name for b in mod["main"].body.blocks[0].bindings]


def test_convert_to_dataflow_canonicalizes_uses_of_constants():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
            c = R.const([1, 2, 3], "int32")
            y = R.add(c, x)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
            with R.dataflow():
                c = R.const([1, 2, 3], "int32")
                y = R.add(R.const([1, 2, 3], "int32"), x)
                R.output(c)
            return R.const([1, 2, 3], "int32")

    # as TVM's pass ends with CanonicalizeBindings: a use of `c` becomes the constant
    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Expected)


@pytest.mark.parametrize("order, direction, expected", [
    ("depth-first", "from-inputs", [1.0, "relax.multiply", 2.0, "relax.multiply",
                                    "relax.subtract"]),
    ("breadth-first", "from-inputs", [1.0, 2.0, "relax.multiply", "relax.multiply",
                                      "relax.subtract"]),
    ("depth-first", "from-outputs", [1.0, "relax.multiply", 2.0, "relax.multiply",
                                     "relax.subtract"]),
])
def test_topological_sort_orders(order, direction, expected):
    after = relax.transform.TopologicalSort(order=order, direction=direction)(Diamond)
    assert _order(after) == expected
    a = np.arange(4, dtype="float32")
    ex = relax.build(after, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(a)).numpy()
    np.testing.assert_allclose(out, a * (a + 1) - a * (a + 2))


def test_topological_sort_refuses_unknown_orders():
    with pytest.raises(ValueError, match="order must be"):
        relax.transform.TopologicalSort(order="random")


def test_convert_to_dataflow_counts_a_local_function_binding_as_pure():
    # apache-tvm 0.27's output: the closure's binding joins the dataflow block, and the
    # function's own body becomes a dataflow block too
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor, y: R.Tensor) -> R.Tensor:
            @R.function
            def inner(a: R.Tensor, b: R.Tensor) -> R.Tensor:
                c = R.add(a, b)
                d = R.multiply(a, c)
                return d

            z = R.add(x, y)
            q = inner(z, x)
            return q

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor, y: R.Tensor) -> R.Tensor:
            with R.dataflow():

                @R.function
                def inner(a: R.Tensor, b: R.Tensor) -> R.Tensor:
                    with R.dataflow():
                        c = R.add(a, b)
                        d = R.multiply(a, c)
                        R.output(d)
                    return d

                z = R.add(x, y)
                q = inner(z, x)
                R.output(q)
            return q

    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Expected)
