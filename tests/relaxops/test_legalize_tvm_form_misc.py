"""LegalizeOps kernels of the manipulate / search / statistical / creation / qdq operators in
TVM 0.27's form. Each expected kernel is what apache-tvm 0.27 prints for the same call (checked
by running it); some cases also run and compare with numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.tir import PrimFunc


def _kernel(mod):
    """The single prim_func LegalizeOps added to `mod`."""
    funcs = [f for f in mod.functions.values() if isinstance(f, PrimFunc)]
    assert len(funcs) == 1, [gv.name_hint for gv in mod.functions]
    return funcs[0]


def _legalize_main(main):
    return relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))


def _run(mod, *args):
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](*(tvm.nd.array(a) for a in args))
    return out.numpy()


def test_float_max_starts_at_the_lowest_finite_value():
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        return R.max(x, axis=1)

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 x_red: T.Buffer((T.int64(2),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("x_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                with T.init():
                    x_red[v_ax0] = T.float32(-3.4028234663852886e+38)
                x_red[v_ax0] = T.max(x_red[v_ax0], x[v_ax0, v_k1])

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = -np.random.rand(2, 3).astype("float32") * 1e3
    np.testing.assert_allclose(_run(mod, x), x.max(axis=1))


def test_prod_of_booleans_is_a_conjunction():
    @R.function
    def main(x: R.Tensor((4,), "bool")):
        return R.prod(x)

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(4),), "bool"), x_red: T.Buffer((), "bool")):
        T.func_attr({"tirx.noalias": True})
        for k0 in range(T.int64(4)):
            with T.sblock("x_red"):
                v_k0 = T.axis.reduce(T.int64(4), k0)
                with T.init():
                    x_red[()] = T.bool(True)
                x_red[()] = x_red[()] and x[v_k0]

    assert_structural_equal(_kernel(_legalize_main(main)), expected)


def test_where_tests_the_condition_as_an_integer():
    @R.function
    def main(c: R.Tensor((2, 3), "bool"), x: R.Tensor((2, 3), "float32"),
             y: R.Tensor((2, 3), "float32")):
        return R.where(c, x, y)

    @T.prim_func(private=True, s_tir=True)
    def expected(c: T.Buffer((T.int64(2), T.int64(3)), "bool"),
                 x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 y: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 T_where: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_where"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T_where[v0, v1] = T.Select(T.int64(0) < T.Cast("int64", c[v0, v1]), x[v0, v1],
                                           y[v0, v1])

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    c = np.array([[True, False, True], [False, False, True]])
    x, y = np.ones((2, 3), "float32"), np.zeros((2, 3), "float32")
    np.testing.assert_allclose(_run(mod, c, x, y), np.where(c, x, y))


def test_tril_and_triu_conditions_are_written_as_tvm_simplifies_them():
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        lo = R.tril(x, 2)
        hi = R.triu(lo, -1)
        return hi

    # apache-tvm 0.27 prints `v_i1 <= v_i0 + 2` and `v_i0 <= v_i1 + 1`
    @T.prim_func(private=True, s_tir=True)
    def tril(x: T.Buffer((T.int64(3), T.int64(4)), "float32"),
             trilu: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("trilu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                trilu[v_i0, v_i1] = T.Select(v_i1 <= v_i0 + T.int64(2), x[v_i0, v_i1],
                                             T.float32(0.0))

    @T.prim_func(private=True, s_tir=True)
    def triu(x: T.Buffer((T.int64(3), T.int64(4)), "float32"),
             trilu: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("trilu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                trilu[v_i0, v_i1] = T.Select(v_i0 <= v_i1 + T.int64(1), x[v_i0, v_i1],
                                             T.float32(0.0))

    mod = _legalize_main(main)
    assert_structural_equal(mod["tril"], tril)
    assert_structural_equal(mod["triu"], triu)
    x = np.arange(12, dtype="float32").reshape(3, 4) + 1
    np.testing.assert_allclose(_run(mod, x), np.triu(np.tril(x, 2), -1))


def test_arange_of_constants_and_astype_of_a_scalar_constant_fold():
    @I.ir_module
    class Before:
        @R.function
        def main():
            a = R.arange(1, 10, 2, "int64")
            b = R.astype(R.const(2.5, "float32"), "int32")
            return (a, b)

    @I.ir_module
    class Expected:
        @R.function
        def main():
            a = R.const(np.array([1, 3, 5, 7, 9], "int64"), "int64")
            b = R.const(2, "int32")
            return (a, b)

    assert_structural_equal(relax.transform.LegalizeOps()(Before), Expected)


def test_dequantize_to_float16_inlines_constant_parameters_and_clips_in_float32():
    @R.function
    def main(x: R.Tensor((2, 4), "int8")):
        return R.dequantize(x, R.const(0.5, "float16"), R.const(3, "int8"), axis=0,
                            out_dtype="float16")

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(4)), "int8"),
                 dequantized: T.Buffer((T.int64(2), T.int64(4)), "float16")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("dequantized"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                dequantized[v_i0, v_i1] = T.Cast("float16", T.max(T.min(
                    T.Cast("float32", T.Cast("int32", x[v_i0, v_i1]) - 3) * T.float32(0.5),
                    T.float32(65504.0)), T.float32(-65504.0)))

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.array([[1, 2, 3, 4], [-5, 6, 7, 127]], "int8")
    np.testing.assert_allclose(_run(mod, x), (x.astype("float32") - 3) * 0.5)


def test_prim_operand_becomes_a_scalar_parameter_and_runs():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), y: R.Prim("float32")):
            gv = R.multiply(x, y)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), y: R.Prim("float32")):
            gv = R.call_tir(Expected.multiply, (x, y), R.Tensor((4, 3), dtype="float32"))
            return gv

        @T.prim_func(private=True, s_tir=True)
        def multiply(x: T.Buffer((T.int64(4), T.int64(3)), "float32"), y: T.float32,
                     T_multiply: T.Buffer((T.int64(4), T.int64(3)), "float32")):
            T.func_attr({"tirx.noalias": True})
            for i0, i1 in T.grid(T.int64(4), T.int64(3)):
                with T.sblock("T_multiply"):
                    v0, v1 = T.axis.remap("SS", [i0, i1])
                    T_multiply[v0, v1] = x[v0, v1] * y

    assert_structural_equal(relax.transform.LegalizeOps()(Before), Expected)
    x = np.random.rand(4, 3).astype("float32")
    vm = relax.VirtualMachine(relax.build(Before, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x), 2.5).numpy(), x * 2.5, rtol=1e-6)


def test_take_in_fast_mode_reads_the_index_as_given():
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), i: R.Tensor((4,), "int64")):
        return R.take(x, i, axis=1)

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 i: T.Buffer((T.int64(4),), "int64"),
                 T_take: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_take[v_ax0, v_ax1] = x[v_ax0, i[v_ax1]]

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x, i = np.random.rand(2, 3).astype("float32"), np.array([2, 0, 1, 2], "int64")
    np.testing.assert_allclose(_run(mod, x, i), x[:, i])


def test_strided_slice_indices_are_written_as_tvm_simplifies_them():
    @R.function
    def main(x: R.Tensor((8, 10), "float32")):
        return R.strided_slice(x, axes=[0, 1], begin=[1, 8], end=[8, 0], strides=[2, -3])

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(8), T.int64(10)), "float32"),
                 T_strided_slice_with_axes: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_strided_slice_with_axes"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_strided_slice_with_axes[v_ax0, v_ax1] = x[
                    v_ax0 * T.int64(2) + T.int64(1), T.int64(8) - v_ax1 * T.int64(3)]

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(8, 10).astype("float32")
    np.testing.assert_allclose(_run(mod, x), x[1:8:2, 8:0:-3])


def test_uneven_split_gives_ceil_sized_sections_and_a_shorter_last_one():
    @R.function
    def main(x: R.Tensor((2, 10), "float32")):
        return R.split(x, 3, axis=1)

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(10)), "float32"),
                 s0: T.Buffer((T.int64(2), T.int64(4)), "float32"),
                 s1: T.Buffer((T.int64(2), T.int64(4)), "float32"),
                 s2: T.Buffer((T.int64(2), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                s0[v_ax0, v_ax1] = x[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                s1[v_ax0, v_ax1] = x[v_ax0, v_ax1 + T.int64(4)]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("T_split_sections_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                s2[v_ax0, v_ax1] = x[v_ax0, v_ax1 + T.int64(8)]

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(2, 10).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    # as TVM (and torch.split with a size of ceil(10 / 3)): 4, 4 and 2 columns
    for got, want in zip(vm["main"](tvm.nd.array(x)), (x[:, :4], x[:, 4:8], x[:, 8:])):
        np.testing.assert_allclose(got.numpy(), want)


def test_plain_matmul_broadcasts_batch_dims_and_casts_operands():
    @R.function
    def main(x: R.Tensor((1, 4, 5), "float16"), y: R.Tensor((3, 5, 2), "float16")):
        return R.matmul(x, y, out_dtype="float32")

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(1), T.int64(4), T.int64(5)), "float16"),
                 y: T.Buffer((T.int64(3), T.int64(5), T.int64(2)), "float16"),
                 matmul: T.Buffer((T.int64(3), T.int64(4), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, i2, k in T.grid(T.int64(3), T.int64(4), T.int64(2), T.int64(5)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + T.Cast(
                    "float32", x[T.int64(0), v_i1, v_k]) * T.Cast("float32", y[v_i0, v_k, v_i2])

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(1, 4, 5).astype("float16")
    y = np.random.rand(3, 5, 2).astype("float16")
    want = np.matmul(x.astype("float32"), y.astype("float32"))
    np.testing.assert_allclose(_run(mod, x, y), want, rtol=1e-5)


def test_std_has_tvms_stages_and_a_unit_iter_var_in_0d_blocks():
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        return R.std(x)

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 compute: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        x_red = T.sblock_alloc_buffer((T.int64(1), T.int64(1)))
        T_divide = T.sblock_alloc_buffer((T.int64(1), T.int64(1)))
        T_subtract = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply_red = T.sblock_alloc_buffer(())
        T_divide_1 = T.sblock_alloc_buffer(())
        for ax0, ax1, k0, k1 in T.grid(T.int64(1), T.int64(1), T.int64(2), T.int64(3)):
            with T.sblock("x_red"):
                v_ax0, v_ax1, v_k0, v_k1 = T.axis.remap("SSRR", [ax0, ax1, k0, k1])
                with T.init():
                    x_red[v_ax0, v_ax1] = T.float32(0.0)
                x_red[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] + x[v_k0, v_k1]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_divide[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] / T.float32(6.0)
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_subtract[v_ax0, v_ax1] = x[v_ax0, v_ax1] - T_divide[T.int64(0), T.int64(0)]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_multiply[v_ax0, v_ax1] = T_subtract[v_ax0, v_ax1] * T_subtract[v_ax0, v_ax1]
        for k0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply_red"):
                v_k0, v_k1 = T.axis.remap("RR", [k0, k1])
                with T.init():
                    T_multiply_red[()] = T.float32(0.0)
                T_multiply_red[()] = T_multiply_red[()] + T_multiply[v_k0, v_k1]
        with T.sblock("T_divide_1"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))  # noqa: F841 (TVM prints it)
            T_divide_1[()] = T_multiply_red[()] / T.float32(6.0)
        with T.sblock("compute"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))  # noqa: F841 (TVM prints it)
            compute[()] = T.sqrt(T_divide_1[()])

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(_run(mod, x), x.std(), rtol=1e-5)


def test_concat_of_a_tuple_variable_binds_its_items_first():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2, 4), "float32"))):
            with R.dataflow():
                gv = R.concat(t, axis=1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @T.prim_func(private=True, s_tir=True)
        def concatenate(lv: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                        lv1: T.Buffer((T.int64(2), T.int64(4)), "float32"),
                        T_concat: T.Buffer((T.int64(2), T.int64(7)), "float32")):
            T.func_attr({"tirx.noalias": True})
            for ax0, ax1 in T.grid(T.int64(2), T.int64(7)):
                with T.sblock("T_concat"):
                    v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                    T_concat[v_ax0, v_ax1] = T.if_then_else(
                        T.int64(3) <= v_ax1, lv1[v_ax0, v_ax1 - T.int64(3)], lv[v_ax0, v_ax1])

        @R.function
        def main(t: R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2, 4), "float32"))):
            cls = Expected
            with R.dataflow():
                lv: R.Tensor((2, 3), dtype="float32") = t[0]
                lv1: R.Tensor((2, 4), dtype="float32") = t[1]
                gv = R.call_tir(cls.concatenate, (lv, lv1),
                                out_ty=R.Tensor((2, 7), dtype="float32"))
                R.output(gv)
            return gv

    after = relax.transform.LegalizeOps()(Before)
    assert_structural_equal(after, Expected)
    a, b = np.random.rand(2, 3).astype("float32"), np.random.rand(2, 4).astype("float32")
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    out = vm["main"]((tvm.nd.array(a), tvm.nd.array(b))).numpy()
    np.testing.assert_allclose(out, np.concatenate([a, b], axis=1))


def test_reshape_index_is_unraveled_as_tvm_simplifies_it():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 2, 3, 4), "float32"), y: R.Tensor(("a", "b"), "float32")):
            a = T.int64()
            b = T.int64()
            gv = R.reshape(x, (8, 3))
            gv1 = R.reshape(y, (a * b,))
            return (gv, gv1)

    # apache-tvm 0.27 prints these two kernels for the calls above
    @T.prim_func(private=True, s_tir=True)
    def static(x: T.Buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(4)), "float32"),
               T_reshape: T.Buffer((T.int64(8), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(8), T.int64(3)):
            with T.sblock("T_reshape"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T_reshape[v0, v1] = x[T.int64(0), (v0 * T.int64(3) + v1) % T.int64(24) // T.int64(
                    12), (v0 * T.int64(3) + v1) % T.int64(12) // T.int64(4), (
                    v0 * T.int64(3) + v1) % T.int64(4)]

    @T.prim_func(private=True, s_tir=True)
    def symbolic(var_x: T.handle, var_T_reshape: T.handle):
        T.func_attr({"tirx.noalias": True})
        a, b = T.int64(), T.int64()
        x = T.match_buffer(var_x, (a, b))
        T_reshape = T.match_buffer(var_T_reshape, (a * b,))
        for ax0 in range(a * b):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(a * b, ax0)
                T_reshape[v_ax0] = x[v_ax0 // b % a, v_ax0 % b]

    after = relax.transform.LegalizeOps()(Before)
    assert_structural_equal(after["reshape"], static)
    assert_structural_equal(after["reshape1"], symbolic)
    x = np.random.rand(1, 2, 3, 4).astype("float32")
    y = np.random.rand(3, 5).astype("float32")
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    gv, gv1 = vm["main"](tvm.nd.array(x), tvm.nd.array(y))
    np.testing.assert_allclose(gv.numpy(), x.reshape(8, 3))
    np.testing.assert_allclose(gv1.numpy(), y.reshape(15))


def test_flip_and_collapse_sum_like_in_tvms_form():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((1, 3), "float32")):
            gv = R.flip(x, axis=0)
            gv1 = R.collapse_sum_like(gv, y)
            return gv1

    # apache-tvm 0.27 prints these kernels (collapse_sum_like takes no buffer for y)
    @T.prim_func(private=True, s_tir=True)
    def flip(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
             T_reverse_sequence: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_reverse_sequence"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T_reverse_sequence[v0, v1] = x[T.int64(1) - v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def collapse_sum(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                     x_red: T.Buffer((T.int64(1), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1, k0 in T.grid(T.int64(1), T.int64(3), T.int64(2)):
            with T.sblock("x_red"):
                v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
                with T.init():
                    x_red[v_ax0, v_ax1] = T.float32(0.0)
                x_red[v_ax0, v_ax1] = x_red[v_ax0, v_ax1] + x[v_k0, v_ax1]

    after = relax.transform.LegalizeOps()(Before)
    assert_structural_equal(after["flip"], flip)
    assert_structural_equal(after["collapse_sum"], collapse_sum)
    x, y = np.random.rand(2, 3).astype("float32"), np.zeros((1, 3), "float32")
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    got = vm["main"](tvm.nd.array(x), tvm.nd.array(y)).numpy()
    np.testing.assert_allclose(got, x[::-1].sum(axis=0, keepdims=True), rtol=1e-6)


def test_symbolic_values_no_input_binds_become_scalar_parameters():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("m", 3), "float32")):
            m = T.int64()
            s = R.shape_to_tensor(R.shape_of(x))
            r = R.arange(1, R.prim_value(m), 2)
            return (s, r)

    # apache-tvm 0.27 prints these kernels: m is passed as `(m,)` and sizes T_arange
    @T.prim_func(private=True, s_tir=True)
    def shape_to_tensor(m: T.int64, out: T.Buffer((T.int64(2),), "int64")):
        T.func_attr({"tirx.noalias": True})
        for i in range(T.int64(2)):
            with T.sblock("shape_to_tensor"):
                v_i = T.axis.spatial(T.int64(2), i)
                out[v_i] = T.if_then_else(v_i == T.int64(0), m, T.if_then_else(
                    v_i == T.int64(1), T.int64(3), T.int64(0)))

    @T.prim_func(private=True, s_tir=True)
    def arange(m: T.int64, var_T_arange: T.handle):
        T.func_attr({"tirx.noalias": True})
        T_arange = T.match_buffer(var_T_arange, (m // T.int64(2),), "int64")
        for ax0 in range(m // T.int64(2)):
            with T.sblock("T_arange"):
                v_ax0 = T.axis.spatial(m // T.int64(2), ax0)
                T_arange[v_ax0] = v_ax0 * T.int64(2) + T.int64(1)

    after = relax.transform.LegalizeOps()(Before)
    assert_structural_equal(after["shape_to_tensor"], shape_to_tensor)
    assert_structural_equal(after["arange"], arange)
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    s, r = vm["main"](tvm.nd.array(np.zeros((9, 3), "float32")))
    np.testing.assert_array_equal(s.numpy(), [9, 3])
    np.testing.assert_array_equal(r.numpy(), np.arange(1, 9, 2))


def test_shape_to_tensor_of_unknown_values_is_the_packed_function():
    @I.ir_module
    class Before:
        @R.function
        def main(s: R.Shape(ndim=2)):
            return R.shape_to_tensor(s)

    @I.ir_module
    class Expected:
        @R.function
        def main(s: R.Shape(ndim=2)):
            gv = R.call_pure_packed("relax.run.shape_to_tensor", s,
                                    sinfo_args=R.Tensor((2,), dtype="int64"))
            return gv

    after = relax.transform.LegalizeOps()(Before)
    assert_structural_equal(after, Expected)
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.runtime.ShapeTuple([4, 7])).numpy(), [4, 7])


def test_plain_reverse_sequence_matches_a_hand_reference():
    @R.function
    def main(x: R.Tensor((4, 2, 3), "float32"), lens: R.Tensor((2,), "int64")):
        return R.reverse_sequence(x, lens, seq_axis=0, batch_axis=1)

    mod = _legalize_main(main)
    x = np.arange(24, dtype="float32").reshape(4, 2, 3)
    lens = np.array([3, 1], "int64")
    want = x.copy()
    want[:3, 0] = x[2::-1, 0]  # the first batch reverses its first 3 steps, the second none
    np.testing.assert_allclose(_run(mod, x, lens), want)


def test_argmax_carries_index_and_value_in_one_reduction_and_runs():
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        return R.argmax(x, axis=1)

    # apache-tvm 0.27 prints this kernel
    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 x_red: T.Buffer((T.int64(2),), "int64")):
        T.func_attr({"tirx.noalias": True})
        x_red_temp_v0 = T.sblock_alloc_buffer((T.int64(2),), "int64")
        x_red_temp_v1 = T.sblock_alloc_buffer((T.int64(2),))
        for ax0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("x_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                with T.init():
                    x_red_temp_v0[v_ax0] = T.int64(-1)
                    x_red_temp_v1[v_ax0] = T.float32(-3.4028234663852886e+38)
                v0: T.int64 = T.Select(x_red_temp_v1[v_ax0] > x[v_ax0, v_k1] or (
                    x_red_temp_v1[v_ax0] == x[v_ax0, v_k1] and x_red_temp_v0[v_ax0] < v_k1),
                    x_red_temp_v0[v_ax0], v_k1)
                v1: T.float32 = T.Select(x_red_temp_v1[v_ax0] > x[v_ax0, v_k1],
                                         x_red_temp_v1[v_ax0], x[v_ax0, v_k1])
                x_red_temp_v0[v_ax0] = v0
                x_red_temp_v1[v_ax0] = v1
        for ax0 in range(T.int64(2)):
            with T.sblock("x_red"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                x_red[v_ax0] = x_red_temp_v0[v_ax0]

    mod = _legalize_main(main)
    assert_structural_equal(_kernel(mod), expected)
    x = np.array([[1, 5, 5], [-3, -9, -3]], "float32")  # ties keep the first index
    np.testing.assert_array_equal(_run(mod, x), [1, 0])


def test_layout_transform_without_padding_stores_each_input_element_where_the_map_sends_it():
    @R.function
    def main(x: R.Tensor((2, 6, 4), "float32")):
        return R.layout_transform(x, index_map=lambda a, b, c: (a, c, b // 3, b % 3))

    # apache-tvm 0.27's form: loops over the input, stores at the mapped position
    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((T.int64(2), T.int64(6), T.int64(4)), "float32"),
                 out: T.Buffer((T.int64(2), T.int64(4), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(6), T.int64(4)):
            with T.sblock("te_layout_transform"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                out[v_i0, v_i2, v_i1 // T.int64(3), v_i1 % T.int64(3)] = A[v_i0, v_i1, v_i2]

    mod = _legalize_main(main)
    assert "te_layout_transform" in [gv.name_hint for gv in mod.functions]  # TVM's name
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(2, 6, 4).astype("float32")
    want = x.reshape(2, 2, 3, 4).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(_run(mod, x), want)


def test_layout_transform_with_padding_pads_the_last_tile_tail():
    @R.function
    def main(x: R.Tensor((2, 5), "float32")):
        return R.layout_transform(x, index_map=lambda a, b: (a, b // 3, b % 3), pad_value=7.0)

    # apache-tvm 0.27's form of the pad condition: the last tile (q == 1) at its tail (r == 2)
    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((T.int64(2), T.int64(5)), "float32"),
                 out: T.Buffer((T.int64(2), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for a0, a1, a2 in T.grid(T.int64(2), T.int64(2), T.int64(3)):
            with T.sblock("te_layout_transform_with_pad"):
                v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
                out[v0, v1, v2] = T.if_then_else(v1 == T.int64(1) and v2 == T.int64(2),
                                                 T.float32(7.0), A[v0, v1 * T.int64(3) + v2])

    mod = _legalize_main(main)
    assert "te_layout_transform_with_pad" in [gv.name_hint for gv in mod.functions]
    assert_structural_equal(_kernel(mod), expected)
    x = np.random.rand(2, 5).astype("float32")
    want = np.concatenate([x, np.full((2, 1), 7.0, "float32")], axis=1).reshape(2, 2, 3)
    np.testing.assert_allclose(_run(mod, x), want)
