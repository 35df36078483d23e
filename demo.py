"""`python -m tvmlite.demo`: MLC lecture 4's MLP, written in TVMScript, compiled and run.

The module below is the lecture's, with only the import lines changed from TVM's. The weights
are random (seeded), so the "class" is just the arg-max of the scores; what matters is that the
compiled model and numpy agree.
"""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import relax as R
from tvmlite.script import tir as T

CLASS_NAMES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(X: T.Buffer[(1, 128), "float32"], Y: T.Buffer[(1, 128), "float32"]):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer[(1, 784), "float32"], W: T.Buffer[(128, 784), "float32"],
                B: T.Buffer[(128,), "float32"], Z: T.Buffer[(1, 128), "float32"]):
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

    @T.prim_func
    def linear1(X: T.Buffer[(1, 128), "float32"], W: T.Buffer[(10, 128), "float32"],
                B: T.Buffer[(10,), "float32"], Z: T.Buffer[(1, 10), "float32"]):
        T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
        Y = T.alloc_buffer((1, 10), "float32")
        for i, j, k in T.grid(1, 10, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: Tensor((1, 784), "float32"), w0: Tensor((128, 784), "float32"),  # noqa: F821
             b0: Tensor((128,), "float32"), w1: Tensor((10, 128), "float32"),  # noqa: F821
             b1: Tensor((10,), "float32")):  # noqa: F821
        with R.dataflow():
            lv0 = R.call_tir(linear0, (x, w0, b0), (1, 128), dtype="float32")
            lv1 = R.call_tir(relu0, (lv0,), (1, 128), dtype="float32")
            out = R.call_tir(linear1, (lv1, w1, b1), (1, 10), dtype="float32")
            R.output(out)
        return out


def main() -> None:
    rng = np.random.default_rng(0)
    img = rng.random((1, 784), dtype=np.float32)
    shapes = {"w0": (128, 784), "b0": (128,), "w1": (10, 128), "b1": (10,)}
    params = {k: (rng.standard_normal(s) * 0.1).astype("float32") for k, s in shapes.items()}

    expected = np.maximum(img @ params["w0"].T + params["b0"], 0) @ params["w1"].T + params["b1"]
    ex = relax.vm.build(MyModule, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    nd_res = vm["main"](tvm.nd.array(img), *(tvm.nd.array(params[k]) for k in shapes))

    print("tvmlite scores:", np.round(nd_res.numpy()[0], 4))
    print("numpy scores:  ", np.round(expected[0], 4))
    print("MyModule Prediction:", CLASS_NAMES[int(nd_res.numpy().argmax(axis=1)[0])])
    print("NumPy-MLP Prediction:", CLASS_NAMES[int(expected.argmax(axis=1)[0])])
    np.testing.assert_allclose(nd_res.numpy(), expected, rtol=1e-5, atol=1e-5)
    print("tvmlite and numpy agree (rtol 1e-5)")


if __name__ == "__main__":
    main()
