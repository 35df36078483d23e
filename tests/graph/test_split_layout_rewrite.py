"""SplitLayoutRewritePreproc: a kernel's weight-repacking loop nests (blocks marked
`meta_schedule.layout_rewrite_preproc`) move to a prepack kernel, called before the kernel."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import expr as rx
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Before:
    @T.prim_func(private=True)
    def matvec(X: T.Buffer((8,), "float32"), W: T.Buffer((8, 6), "float32"),
               Y: T.Buffer((6,), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tir.noalias": True})
        WT = T.alloc_buffer((6, 8))
        for i, j in T.grid(8, 6):
            with T.block("WT"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.block_attr({"meta_schedule.layout_rewrite_preproc": True})
                WT[vj, vi] = W[vi, vj]
        for j, k in T.grid(6, 8):
            with T.block("Y"):
                vj, vk = T.axis.remap("SR", [j, k])
                with T.init():
                    Y[vj] = T.float32(0)
                Y[vj] = Y[vj] + X[vk] * WT[vj, vk]

    @R.function
    def main(x: R.Tensor((8,), "float32"), w: R.Tensor((8, 6), "float32")):
        R.func_attr({"num_input": 1})
        cls = Before
        with R.dataflow():
            y = R.call_tir(cls.matvec, (x, w), R.Tensor((6,), "float32"))
            R.output(y)
        return y


@I.ir_module
class Expected:
    @T.prim_func(private=True)
    def matvec_weight_prepack(W: T.Buffer((8, 6), "float32"), WT: T.Buffer((6, 8), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j in T.grid(8, 6):
            with T.block("WT"):
                vi, vj = T.axis.remap("SS", [i, j])
                WT[vj, vi] = W[vi, vj]

    @T.prim_func(private=True)
    def matvec_prepacked(X: T.Buffer((8,), "float32"), WT: T.Buffer((6, 8), "float32"),
                         Y: T.Buffer((6,), "float32")):
        T.func_attr({"tir.noalias": True})
        for j, k in T.grid(6, 8):
            with T.block("Y"):
                vj, vk = T.axis.remap("SR", [j, k])
                with T.init():
                    Y[vj] = T.float32(0)
                Y[vj] = Y[vj] + X[vk] * WT[vj, vk]

    @R.function
    def main(x: R.Tensor((8,), "float32"), w: R.Tensor((8, 6), "float32")):
        R.func_attr({"num_input": 1})
        cls = Expected
        with R.dataflow():
            wt = R.call_tir(cls.matvec_weight_prepack, (w,), R.Tensor((6, 8), "float32"))
            y1 = R.call_tir(cls.matvec_prepacked, (x, wt), R.Tensor((6,), "float32"))
            y: R.Tensor((6,), "float32") = y1
            R.output(y)
        return y


def _run(mod, x, w):
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return vm["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy()


def test_repacking_moves_to_a_prepack_kernel_called_first():
    after = relax.transform.SplitLayoutRewritePreproc()(Before)
    assert_structural_equal(after, Expected)
    relax.analysis.well_formed(after)


def test_split_module_computes_what_the_kernel_did():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(8).astype("float32")
    w = rng.standard_normal((8, 6)).astype("float32")
    after = relax.transform.SplitLayoutRewritePreproc()(Before)
    np.testing.assert_allclose(_run(after, x, w), x @ w, rtol=1e-5, atol=1e-5)


def test_kernel_without_marked_blocks_is_left_alone():
    @I.ir_module
    class Unmarked:
        @T.prim_func(private=True)
        def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("B"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Unmarked
            with R.dataflow():
                y = R.call_tir(cls.add, (x,), R.Tensor((4,), "float32"))
                R.output(y)
            return y

    assert relax.transform.SplitLayoutRewritePreproc()(Unmarked) is Unmarked


@I.ir_module
class WithScalar:
    @T.prim_func(private=True)
    def scale(X: T.Buffer((4,), "float32"), k: T.int64, W: T.Buffer((4,), "float32"),
              Y: T.Buffer((4,), "float32")):
        W2 = T.alloc_buffer((4,))
        for i in range(4):
            with T.block("W2"):
                vi = T.axis.spatial(4, i)
                T.block_attr({"meta_schedule.layout_rewrite_preproc": True})
                W2[3 - vi] = W[vi]
        for i in range(4):
            with T.block("Y"):
                vi = T.axis.spatial(4, i)
                Y[vi] = X[vi] * W2[3 - vi] * T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        cls = WithScalar
        with R.dataflow():
            y = R.call_tir(cls.scale, (x, R.prim_value(T.int64(3)), w),
                           R.Tensor((4,), "float32"))
            R.output(y)
        return y


def test_a_scalar_parameter_keeps_its_place_among_the_arguments():
    after = relax.transform.SplitLayoutRewritePreproc()(WithScalar)
    bindings = after["main"].body.blocks[0].bindings
    main = after["main"]
    assert bindings[0].value.args[1].fields == (main.params[1],)  # the weight, repacked
    x, k, packed = bindings[1].value.args[1].fields
    assert x is main.params[0] and isinstance(k, rx.PrimValue) and packed is bindings[0].var
    assert [p.dtype for p in after["scale_prepacked"].params] == ["handle", "int64", "handle",
                                                                   "handle"]
    x_np, w_np = np.arange(4, dtype="float32"), np.array([1, 2, 3, 4], "float32")
    np.testing.assert_allclose(_run(after, x_np, w_np), x_np * w_np * 3)
