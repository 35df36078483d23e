"""LegalizeOps kernels in TVM 0.27's form for a repeated argument (one buffer per argument, as
TVM's emit_te makes them), for size-1 dims (read at the index unless really broadcast) and for
reshape indices TVM's simplifier splits; RewriteDataflowReshape keeps a kernel that reads only
part of its input. Expected kernels are what apache-tvm 0.27 prints for the same calls."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.tir import PrimFunc


def _kernels(mod):
    return {gv.name_hint: f for gv, f in mod.items() if isinstance(f, PrimFunc)}


def test_repeated_argument_gets_its_own_buffer():
    @R.function
    def main(y: R.Tensor((2, 3), "float32")):
        z = R.multiply(y, y)
        return z

    @T.prim_func(private=True, s_tir=True)
    def expected(y: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 y_1: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 T_multiply: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_multiply[v_ax0, v_ax1] = y[v_ax0, v_ax1] * y_1[v_ax0, v_ax1]

    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))
    assert_structural_equal(_kernels(mod)["multiply"], expected)
    call = mod["main"].body.blocks[0].bindings[0].value
    assert [a.name_hint for a in call.args[1].fields] == ["y", "y"]
    x = np.arange(6, dtype="float32").reshape(2, 3)
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x))
    np.testing.assert_array_equal(out.numpy(), x * x)


def test_size_one_dim_kept_by_the_output_reads_at_the_index():
    @R.function
    def main(x: R.Tensor((1, 1), "float32"), y: R.Tensor((1, 4), "float32")):
        z = R.add(x, y)
        return z

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(1), T.int64(1)), "float32"),
                 y: T.Buffer((T.int64(1), T.int64(4)), "float32"),
                 T_add: T.Buffer((T.int64(1), T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(1), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_add[v_ax0, v_ax1] = x[v_ax0, T.int64(0)] + y[v_ax0, v_ax1]

    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))
    assert_structural_equal(_kernels(mod)["add"], expected)


def test_broadcast_to_reads_a_kept_unit_dim_at_the_index():
    @R.function
    def main(x: R.Tensor((1, 1), "float32")):
        z = R.broadcast_to(x, (1, 3))
        return z

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(1), T.int64(1)), "float32"),
                 T_broadcast_to: T.Buffer((T.int64(1), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(1), T.int64(3)):
            with T.sblock("T_broadcast_to"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_broadcast_to[v_ax0, v_ax1] = x[v_ax0, T.int64(0)]

    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))
    assert_structural_equal(_kernels(mod)["broadcast_to"], expected)


def test_rewrite_dataflow_reshape_keeps_a_kernel_that_changes_the_volume():
    @I.ir_module
    class Module:
        @T.prim_func
        def head(A: T.Buffer((T.int64(1), T.int64(8)), "int32"),
                 B: T.Buffer((T.int64(1), T.int64(6)), "int32")):
            for i, j in T.grid(T.int64(1), T.int64(6)):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj]

        @R.function
        def main(a: R.Tensor((1, 8), "int32")) -> R.Tensor((1, 6), "int32"):
            cls = Module
            with R.dataflow():
                s = R.call_tir(cls.head, (a,), R.Tensor((1, 6), "int32"))
                t = R.add(s, s)
                R.output(t)
            return t

    assert relax.analysis.has_reshape_pattern(Module["head"])
    assert_structural_equal(relax.transform.RewriteDataflowReshape()(Module), Module)


def test_flatten_reshape_index_splits_a_multiple_of_the_stride():
    @R.function
    def main(x: R.Tensor((2, 3, 4, 5), "float32")):
        z = R.nn.batch_flatten(x)
        return z

    @T.prim_func(private=True, s_tir=True)
    def expected(x: T.Buffer((T.int64(2), T.int64(3), T.int64(4), T.int64(5)), "float32"),
                 T_reshape: T.Buffer((T.int64(2), T.int64(60)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(60)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_reshape[v_ax0, v_ax1] = x[(v_ax1 // T.int64(60) + v_ax0) % T.int64(2),
                                            v_ax1 % T.int64(60) // T.int64(20),
                                            v_ax1 % T.int64(20) // T.int64(5),
                                            v_ax1 % T.int64(5)]

    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))
    assert_structural_equal(_kernels(mod)["reshape"], expected)
    x = np.random.rand(2, 3, 4, 5).astype("float32")
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x))
    np.testing.assert_array_equal(out.numpy(), x.reshape(2, 60))


def test_reshape_with_split_strides_matches_numpy():
    # (4, 6) -> (2, 2, 3, 2): the raveled index 6 * i0 + i1 meets strides 6 and 12
    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        z = R.reshape(x, (2, 2, 3, 2))
        w = R.reshape(z, (8, 3))
        return (z, w)

    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": main}))
    x = np.random.rand(4, 6).astype("float32")
    ex = relax.build(mod, target="llvm")
    z, w = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x))
    np.testing.assert_array_equal(z.numpy(), x.reshape(2, 2, 3, 2))
    np.testing.assert_array_equal(w.numpy(), x.reshape(8, 3))


def test_attention_with_a_bias_is_the_attention_bias_operator():
    q = relax.Var("q", R.Tensor((1, 4, 2, 8), "float32"))
    bias = relax.Var("bias", R.Tensor((1, 2, 4, 4), "float32"))
    assert relax.op.nn.attention(q, q, q).op.name == "relax.nn.attention"
    call = relax.op.nn.attention(q, q, q, bias)
    assert call.op.name == "relax.nn.attention_bias"
    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": relax.Function(
        [q, bias], call, call.struct_info)}))
    assert list(_kernels(mod)) == ["attention_bias"]
