"""AttachAttrLayoutFreeBuffers: weights (parameters past num_input) and constants passed to
call_tir mark the prim_func's buffers layout-free, one copy per set of indices."""

import numpy as np

from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Before:
    @T.prim_func(private=True)
    def mul(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
            C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[vi] * B[vi]

    @T.prim_func(private=True)
    def mul1(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
             C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[vi] + B[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        cls = Before
        with R.dataflow():
            a = R.call_tir(cls.mul, (x, w), R.Tensor((4,), "float32"))
            b = R.call_tir(cls.mul, (w, a), R.Tensor((4,), "float32"))
            c = R.call_tir(cls.mul, (a, b), R.Tensor((4,), "float32"))
            R.output(c)
        return c


def test_each_index_set_gets_its_own_copy_named_past_existing_names():
    after = relax.transform.AttachAttrLayoutFreeBuffers()(Before)
    names = sorted(gv.name_hint for gv in after.functions)
    # `mul` is still called with no weight; `mul1` was taken, so the copies are mul2, mul3
    assert names == ["main", "mul", "mul1", "mul2", "mul3"]
    assert after["mul2"].attr_dict["layout_free_buffers"] == [1]
    assert after["mul3"].attr_dict["layout_free_buffers"] == [0]
    assert "layout_free_buffers" not in after["mul"].attr_dict
    callees = [b.value.args[0].gvar.name_hint
               for b in after["main"].body.blocks[0].bindings]
    assert callees == ["mul2", "mul3", "mul"]
    relax.analysis.well_formed(after)


def test_constant_argument_is_layout_free_and_unused_original_is_dropped():
    weight = np.arange(4, dtype="float32")

    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def mul(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
                C: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(4, i)
                    C[vi] = A[vi] * B[vi]

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Mod
            with R.dataflow():
                a = R.call_tir(cls.mul, (x, R.const(weight)), R.Tensor((4,), "float32"))
                R.output(a)
            return a

    after = relax.transform.AttachAttrLayoutFreeBuffers()(Mod)
    assert sorted(gv.name_hint for gv in after.functions) == ["main", "mul1"]
    assert_structural_equal(after["mul1"],
                            Mod["mul"].with_attr("layout_free_buffers", [1]))


def test_without_num_input_parameters_are_not_weights():
    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def mul(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"),
                C: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("C"):
                    vi = T.axis.spatial(4, i)
                    C[vi] = A[vi] * B[vi]

        @R.function
        def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
            cls = Mod
            with R.dataflow():
                a = R.call_tir(cls.mul, (x, w), R.Tensor((4,), "float32"))
                R.output(a)
            return a

    assert relax.transform.AttachAttrLayoutFreeBuffers()(Mod) is Mod
