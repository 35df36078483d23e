"""Passes over functions and their call sites (transforms/function_passes.py): Before/Expected
as TVM writes them, and a numeric check where a pass rewrites what runs."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def _run(mod, *arrays):
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in arrays])
    return out.numpy()


def test_attach_global_symbol_names_private_functions_with_the_prefix():
    @I.ir_module
    class Before:
        I.module_attrs({"system_lib_prefix": "lib_"})

        @T.prim_func(private=True)
        def zeros(x: T.Buffer((2,), "float32")):
            x[0] = T.float32(0)
            x[1] = T.float32(0)

        @R.function(private=True)
        def main() -> R.Tensor((2,), "float32"):
            cls = Before
            gv = R.call_tir(cls.zeros, (), R.Tensor((2,), "float32"))
            return gv

    after = relax.transform.AttachGlobalSymbol()(Before)
    assert sorted(after.names()) == ["lib_zeros", "main"]
    assert after["lib_zeros"].attr_dict["global_symbol"] == "lib_zeros"
    assert after["main"].attr_dict["global_symbol"] == "main"
    call = after["main"].body.blocks[0].bindings[0].value
    assert call.args[0].gvar.name_hint == "lib_zeros"


def test_normalize_global_var_renames_by_global_symbol():
    @I.ir_module(check_well_formed=False)
    class Before:
        @R.function(private=True)
        def f() -> R.Tensor((), "int32"):
            return R.const(1, "int32")

        @R.function
        def f1() -> R.Tensor((), "int32"):
            R.func_attr({"global_symbol": "f"})
            cls = Before
            gv: R.Tensor((), "int32") = cls.f()
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def f() -> R.Tensor((), "int32"):
            cls = Expected
            gv: R.Tensor((), "int32") = cls.f1()
            return gv

        @R.function(private=True)
        def f1() -> R.Tensor((), "int32"):
            return R.const(1, "int32")

    assert_structural_equal(relax.transform.NormalizeGlobalVar()(Before), Expected)


def test_normalize_global_var_re_emits_a_renamed_call_with_its_struct_info():
    @I.ir_module(check_well_formed=False)
    class Before:
        @T.prim_func(private=True)
        def f(x: T.Buffer((2,), "int32")):
            for i in range(2):
                x[i] = T.int32(7)

        @R.function
        def f1():
            R.func_attr({"global_symbol": "f"})
            cls = Before
            # annotated wrongly: the renamed call is re-emitted, as TVM does, with its own
            gv: R.Tensor((), "int32") = R.call_tir(cls.f, (), R.Tensor((2,), "int32"))
            return gv

    @I.ir_module
    class Expected:
        @T.prim_func(private=True)
        def f1(x: T.Buffer((2,), "int32")):
            for i in range(2):
                x[i] = T.int32(7)

        @R.function
        def f() -> R.Tensor((2,), "int32"):
            cls = Expected
            gv = R.call_tir(cls.f1, (), R.Tensor((2,), "int32"))
            return gv

    after = relax.transform.NormalizeGlobalVar()(Before)
    assert relax.analysis.well_formed(after)
    assert_structural_equal(after, Expected)
    np.testing.assert_array_equal(_run(after.with_function("main", after["f"])), [7, 7])


def test_remove_unused_parameters_and_outputs():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            pair = Before.func(a, b)
            return pair[1]

        @R.function(private=True)
        def func(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            c = R.add(a, a)
            d = R.multiply(a, a)
            return (c, d)

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            d = Expected.func(a)
            return d

        @R.function(private=True)
        def func(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            d = R.multiply(a, a)
            return d

    after = relax.transform.RemoveUnusedOutputs()(relax.transform.RemoveUnusedParameters()(
        Before))
    assert_structural_equal(after, Expected)
    a = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(_run(after, a, a + 1), a * a)


def test_remove_unused_parameters_passes_a_needed_dim_as_a_shape():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")):
            return Before.func(a, b)

        @R.function(private=True)
        def func(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")
                 ) -> R.Tensor(("n", "m"), "float32"):
            n = T.int64()
            m = T.int64()
            return R.ones(R.shape([n, m]), "float32")

    # as TVM 0.27: the unused tensors go; each dim the body needs comes through an R.Shape of
    # its own (last-defined first), given by the caller from its own dims
    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")):
            n = T.int64()
            m = T.int64()
            return Expected.func(R.shape([m]), R.shape([n]))

        @R.function(private=True)
        def func(param_m: R.Shape(["m"]), param_n: R.Shape(["n"])
                 ) -> R.Tensor(("n", "m"), "float32"):
            n = T.int64()
            m = T.int64()
            return R.ones(R.shape([n, m]), "float32")

    after = relax.transform.RemoveUnusedParameters()(Before)
    assert_structural_equal(after, Expected)
    ones = _run(after, np.zeros(2, "float32"), np.zeros(3, "float32"))
    np.testing.assert_array_equal(ones, np.ones((2, 3), "float32"))


def test_remove_unused_parameters_keeps_a_used_one_defining_the_dims():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")):
            return Before.func(a, b)

        @R.function(private=True)
        def func(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")
                 ) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            return R.add(a, R.zeros(R.shape([n]), "float32"))

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")):
            return Expected.func(a)

        @R.function(private=True)
        def func(a: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            return R.add(a, R.zeros(R.shape([n]), "float32"))

    assert_structural_equal(relax.transform.RemoveUnusedParameters()(Before), Expected)


def test_expand_tuple_arguments():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            return Before.func(((a, b), a))

        @R.function(private=True)
        def func(args: R.Tuple(R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")),
                               R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
            return R.subtract(args[0][1], args[1])

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            return Expected.func(a, b, a)

        @R.function(private=True)
        def func(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"),
                 c: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            return R.subtract(b, c)

    after = relax.transform.ExpandTupleArguments()(Before)
    assert_structural_equal(after, Expected)


def test_inline_private_functions_runs_the_same():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 4), "float32"):
            b = R.multiply(a, a)
            c = Before.twice(b)
            d = R.add(c, c)
            return d

        @R.function(private=True)
        def twice(b: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 4), "float32"):
            c = R.concat([b, b], axis=1)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 4), "float32"):
            b = R.multiply(a, a)
            c = R.concat([b, b], axis=1)
            d = R.add(c, c)
            return d

    after = relax.transform.InlinePrivateFunctions()(Before)
    assert_structural_equal(after, Expected)
    a = np.arange(4, dtype="float32").reshape(2, 2)
    np.testing.assert_array_equal(_run(after, a), 2 * np.concatenate([a * a, a * a], 1))


def test_update_param_type_infers_the_body_again():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), w: R.Tensor((32, 16), "float32")):
            out = R.matmul(w, x)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((16,), "float32"), w: R.Tensor((64, 16), "float32")):
            out = R.matmul(w, x)
            return out

    def new_type(var):
        return relax.TensorType([64, 16], "float32") if var.name == "w" else None

    assert_structural_equal(relax.transform.UpdateParamType(new_type)(Before), Expected)
    assert relax.transform.UpdateParamStructInfo is relax.transform.UpdateParamType
