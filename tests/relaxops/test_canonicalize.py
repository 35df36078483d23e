# ruff: noqa: F841 (the bindings a pass keeps are part of the expected module)
"""CanonicalizeBindings as TVM 0.27 does it (transforms/canonicalize.py): Before/Expected, each
checked against what apache-tvm prints for the same module."""

from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def _canon(mod):
    return relax.transform.CanonicalizeBindings()(mod)


def test_output_takes_over_the_dataflow_binding_it_renames():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv1 = R.add(x, x)
                gv1 = lv1
                gv2 = R.multiply(lv1, x)
                R.output(gv1, gv2)
            return (gv1, gv2)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                gv1 = R.add(x, x)
                gv2 = R.multiply(gv1, x)
                R.output(gv1, gv2)
            return (gv1, gv2)

    assert_structural_equal(_canon(Before), Expected)


def test_chains_vanish_and_empty_blocks_go():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = x
                z = y
                R.output(z)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    assert_structural_equal(_canon(Before), Expected)


def test_known_tuple_items_and_constants_are_read_directly():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            a = t[0]
            c = R.const(2.0, "float32")
            z = R.multiply(a, c)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            c = R.const(2.0, "float32")
            z = R.multiply(x, R.const(2.0, "float32"))
            return z

    assert_structural_equal(_canon(Before), Expected)


def test_outputs_used_only_inside_their_block_become_dataflow_vars():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.add(x, x)
                z = R.add(y, x)
                R.output(y, z)
            return z

    after = _canon(Before)
    y_var, z_var = (b.var for b in after["main"].body.blocks[0].bindings)
    assert isinstance(y_var, relax.DataflowVar) and not isinstance(z_var, relax.DataflowVar)


def test_match_cast_renaming_dims_goes_and_struct_info_is_refined():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("m", "n"), "float32")):
            o = T.int64()
            p = T.int64()
            z = R.match_cast(x, R.Tensor((o, p), "float32"))
            q: R.Tensor(ndim=2, dtype="float32") = R.add(z, x)
            return q

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(("m", "n"), "float32")):
            m = T.int64()
            n = T.int64()
            q: R.Tensor((m, n), "float32") = R.add(x, x)
            return q

    assert_structural_equal(_canon(Before), Expected)


def test_tuple_rebuilt_item_by_item_is_the_original_tuple():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                out = (a, b)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                R.output()
            return t

    assert_structural_equal(_canon(Before), Expected)


def test_tuple_of_some_items_or_reordered_items_stays():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"),
                            R.Tensor((2,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                part = (a, b)
                swapped = (b, a, a)
                R.output(part, swapped)
            return (part, swapped)

    assert_structural_equal(_canon(Before), Before)


def test_tuple_whose_field_was_renamed_gets_the_more_precise_struct_info():
    # apache-tvm 0.27: the tuple's variable takes the fields' shapes once `c` reads `y`
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n", 4), "float16"), y: R.Tensor((6, 4), "float16")):
            with R.dataflow():
                c = y
                d: R.Tuple(R.Tensor(dtype="float16", ndim=2),
                           R.Tensor((6, 4), "float16")) = (x, c)
                e = d
                R.output(e)
            return e

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(("n", 4), "float16"), y: R.Tensor((6, 4), "float16")):
            n = T.int64()
            with R.dataflow():
                e: R.Tuple(R.Tensor((n, 4), "float16"), R.Tensor((6, 4), "float16")) = (x, y)
                R.output(e)
            return e

    assert_structural_equal(_canon(Before), Expected)
