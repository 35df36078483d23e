"""The lecture's MLP in today's TVMScript (TVM 0.27 spellings), with a symbolic batch size."""

import tvmlite as tvm
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class DynamicMLP:
    @T.prim_func(s_tir=True)
    def linear(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        n, k, m = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (n, k), "float32")
        W = T.match_buffer(w, (m, k), "float32")
        B = T.match_buffer(b, (m,), "float32")
        Z = T.match_buffer(z, (n, m), "float32")
        Y = T.alloc_buffer((n, m), "float32")
        for i, j, r in T.grid(n, m, k):
            with T.sblock("Y"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vj, vr]
        for i, j in T.grid(n, m):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func(s_tir=True)
    def relu(x: T.handle, y: T.handle):
        n, m = T.int64(), T.int64()
        X = T.match_buffer(x, (n, m), "float32")
        Y = T.match_buffer(y, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor(("n", 784), "float32"),
             w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"),
             w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        n = T.int64()
        cls = DynamicMLP
        with R.dataflow():
            lv0 = R.call_tir(cls.linear, (x, w0, b0), out_sinfo=R.Tensor((n, 128), "float32"))
            lv1 = R.call_tir(cls.relu, (lv0,), out_ty=R.Tensor((n, 128), "float32"))
            out = R.call_tir(cls.linear, (lv1, w1, b1), R.Tensor((n, 10), "float32"))
            R.output(out)
        return out


@I.ir_module
class StaticMLPNewSyntax:
    @T.prim_func
    def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        cls = StaticMLPNewSyntax
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), "float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((1, 128), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1),
                                    out_sinfo=R.Tensor((1, 10), "float32"))
            R.output(out)
        return out


@I.ir_module
class PackedCallModule:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.call_packed("env.double", x, sinfo_args=R.Tensor((2, 3), "float32"))
        return y


_ = tvm  # the modules above are what this file exports
