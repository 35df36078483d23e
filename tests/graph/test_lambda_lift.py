"""LambdaLift: lifted names avoid the module's, lifted functions own their symbolic vars, and
the callers' struct info is what a call of the module function infers."""

import pytest

from tvmlite import IRModule, relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def test_lifted_name_skips_a_name_the_module_already_has():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            @R.function
            def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                return y

            z = inner(x)
            return z

        @R.function
        def main_inner():
            return R.tuple()

    after = relax.transform.LambdaLift()(Before)
    assert sorted(gv.name_hint for gv in after.functions) == ["main", "main_inner",
                                                              "main_inner_0"]
    call = after["main"].body.blocks[0].bindings[0].value
    assert call.op.gvar.name_hint == "main_inner_0"


def test_call_of_a_symbolic_local_function_gets_the_callers_dims():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((10, 5), "float32")):
            @R.function
            def inner(a: R.Tensor(("n", "m"), "float32")):
                b = R.add(a, a)
                return b

            s = inner(x)
            return s

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((10, 5), "float32")) -> R.Tensor((10, 5), "float32"):
            s: R.Tensor((10, 5), "float32") = Expected.main_inner(x)
            return s

        @R.function(private=True)
        def main_inner(a: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
            b = R.add(a, a)
            return b

    after = relax.transform.LambdaLift()(Before)
    assert_structural_equal(after, Expected)
    relax.analysis.well_formed(after)


def test_lifted_function_does_not_share_the_parents_symbolic_vars():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()

            @R.function
            def inner(a: R.Tensor((n,), "float32")):
                return a

            s = inner(x)
            return s

    after = relax.transform.LambdaLift()(Before)
    outer_n = after["main"].params[0].struct_info.shape[0]
    inner_n = after["main_inner"].params[0].struct_info.shape[0]
    assert outer_n.name == inner_n.name == "n"
    assert outer_n is not inner_n
    relax.analysis.well_formed(after)


def test_a_capturing_local_function_is_refused():
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            z = R.add(x, y)
            return z

        w = inner(x)
        return w

    with pytest.raises(ValueError, match="captures \\['x'\\]"):
        relax.transform.LambdaLift()(IRModule({"main": main}))
