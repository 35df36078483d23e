# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
# ---

# %% [markdown]
# # 1. An end-to-end model, from numpy to a compiled VM
#
# This notebook follows the path of the MLC course's lecture on end-to-end model execution,
# with tvmlite in place of TVM (only the import lines differ). We take a two-layer perceptron
# (784 → 128 → 10, with a ReLU between) and carry it through four forms:
#
# 1. plain numpy, the reference;
# 2. "low-level numpy": explicit loops, with every output buffer allocated by the caller;
# 3. a TVMScript `IRModule`: loop programs (`@T.prim_func`) plus a graph (`@R.function`);
# 4. a compiled executable run by the virtual machine.
#
# Then we swap one layer for an external Python function, and bake the weights into the
# module. We use random weights, so the "prediction" is just the arg-max of the scores.

# %%
from __future__ import annotations  # lets TVMScript annotations stay unevaluated by Python

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import relax as R
from tvmlite.script import tir as T

rng = np.random.default_rng(2024)
params = {
    "w0": rng.standard_normal((128, 784)).astype("float32") * 0.05,
    "b0": rng.standard_normal((128,)).astype("float32") * 0.05,
    "w1": rng.standard_normal((10, 128)).astype("float32") * 0.05,
    "b1": rng.standard_normal((10,)).astype("float32") * 0.05,
}
data = rng.standard_normal((1, 784)).astype("float32")

# %% [markdown]
# ## The model in numpy

# %%
def numpy_mlp(x, w0, b0, w1, b1):
    hidden = np.maximum(x @ w0.T + b0, 0)
    return hidden @ w1.T + b1


reference = numpy_mlp(data, **params)
print("numpy scores:", np.round(reference, 3))
print("numpy prediction:", reference.argmax(axis=1)[0])

# %% [markdown]
# ## Low-level numpy: loops, and outputs passed in
#
# Each layer becomes a function that writes into a buffer its caller allocated. This
# *destination-passing* style is exactly the calling convention of a compiled kernel: the
# graph above the kernels owns the memory.

# %%
def lnumpy_linear(X, W, B, Z):
    n, m = Z.shape
    Y = np.empty((n, m), dtype="float32")
    for i in range(n):
        for j in range(m):
            Y[i, j] = 0
            for k in range(X.shape[1]):
                Y[i, j] += X[i, k] * W[j, k]
    for i in range(n):
        for j in range(m):
            Z[i, j] = Y[i, j] + B[j]


def lnumpy_relu(X, Y):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Y[i, j] = max(X[i, j], 0)


def lnumpy_mlp(x, w0, b0, w1, b1):
    lv0 = np.empty((1, 128), dtype="float32")
    lnumpy_linear(x, w0, b0, lv0)
    lv1 = np.empty((1, 128), dtype="float32")
    lnumpy_relu(lv0, lv1)
    out = np.empty((1, 10), dtype="float32")
    lnumpy_linear(lv1, w1, b1, out)
    return out


np.testing.assert_allclose(lnumpy_mlp(data, **params), reference, rtol=1e-4, atol=1e-5)
print("low-level numpy agrees with numpy")

# %% [markdown]
# ## The same program in TVMScript
#
# `@T.prim_func` holds a loop program; a `T.block` names a unit of computation and says how
# its iterators relate to the loops (`"S"` spatial, `"R"` reduction); `T.init()` runs on the
# first step of the reduction. `@R.function main` is the graph: `R.call_tir(f, inputs,
# out)` allocates `out` and calls `f(*inputs, out)`, just like `lnumpy_mlp` above.

# %%
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


# %% [markdown]
# ## Build and run
#
# `relax.vm.build` compiles each prim_func to native code (through LLVM) and the graph to VM
# bytecode; `relax.VirtualMachine` runs it. The executable's bytecode is printable.

# %%
ex = relax.vm.build(MyModule, target="llvm")
print(ex.as_text())
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_params = {k: tvm.nd.array(v) for k, v in params.items()}
scores = vm["main"](tvm.nd.array(data), nd_params["w0"], nd_params["b0"], nd_params["w1"],
                    nd_params["b1"])
print("tvmlite prediction:", scores.numpy().argmax(axis=1)[0])
np.testing.assert_allclose(scores.numpy(), reference, rtol=1e-5, atol=1e-5)


# %% [markdown]
# ## Calling an external function
#
# A graph may call functions registered from Python. They receive `NDArray`s that speak
# DLPack, so `np.from_dlpack` (or `torch.from_dlpack`) views the VM's memory without a copy:
# writing into the `out` view fills the VM's output.

# %%
@tvm.register_func("env.linear", override=True)
def numpy_linear(x, w, b, out):
    x, w, b, out = (np.from_dlpack(t) for t in (x, w, b, out))
    np.matmul(x, w.T, out=out)
    out += b


@tvm.script.ir_module
class MyModuleMixture:
    @T.prim_func
    def relu0(X: T.Buffer[(1, 128), "float32"], Y: T.Buffer[(1, 128), "float32"]):
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: Tensor((1, 784), "float32"), w0: Tensor((128, 784), "float32"),  # noqa: F821
             b0: Tensor((128,), "float32"), w1: Tensor((10, 128), "float32"),  # noqa: F821
             b1: Tensor((10,), "float32")):  # noqa: F821
        with R.dataflow():
            lv0 = R.call_tir("env.linear", (x, w0, b0), (1, 128), dtype="float32")
            lv1 = R.call_tir(relu0, (lv0,), (1, 128), dtype="float32")
            out = R.call_tir("env.linear", (lv1, w1, b1), (1, 10), dtype="float32")
            R.output(out)
        return out


vm = relax.VirtualMachine(relax.vm.build(MyModuleMixture, target="llvm"), tvm.cpu())
scores = vm["main"](tvm.nd.array(data), *nd_params.values())
np.testing.assert_allclose(scores.numpy(), reference, rtol=1e-5, atol=1e-5)
print("mixture prediction:", scores.numpy().argmax(axis=1)[0])

# %% [markdown]
# ## Binding the weights
#
# `BindParams` turns parameters into constants of the module; `main` then takes only the data.

# %%
MyModuleWithParams = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
print("main now takes:", [p.name_hint for p in MyModuleWithParams["main"].params])
vm = relax.VirtualMachine(relax.vm.build(MyModuleWithParams, target="llvm"), tvm.cpu())
scores = vm["main"](tvm.nd.array(data))
np.testing.assert_allclose(scores.numpy(), reference, rtol=1e-5, atol=1e-5)
print("bound-params prediction:", scores.numpy().argmax(axis=1)[0])
