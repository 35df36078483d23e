# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
# ---

# %% [markdown]
# # 4. Bring your own codegen — from Python, with no rebuild
#
# TVM's BYOC ("bring your own codegen") lets a library or an accelerator run the parts of a
# model it is good at, while TVM compiles the rest. In TVM the codegen is C++ compiled into
# TVM itself: a newcomer who sees *"Failed to find the codegen tool for relay.ext.ccompiler"*
# has to rebuild TVM. In tvmlite a backend is two registrations, both from Python:
#
# 1. **patterns**: what subgraphs the backend takes (`relax.dpl`, the pattern language);
# 2. **a codegen**: `@tvm.register_func("relax.ext.<name>")`, which receives the matched
#    functions and returns callables that run them.
#
# We follow the journey of a classic BYOC demo: VGG-11, offload `conv2d + bias + relu` (and
# the dense layers), inspect the partitioned module, run it, compare with the un-offloaded
# build and with numpy, time both, save it to a file and load it back — then write a tiny
# backend of our own.

# %%
import os
import tempfile
import time

import numpy as np

import tvmlite as tvm
from tvmlite import relax, testing
from tvmlite.backend.numpy_eval import compile_function
from tvmlite.relax.backend.pattern_registry import get_patterns_with_prefix
from tvmlite.relax.backend.patterns import make_fused_bias_activation_pattern
from tvmlite.relax.dpl import is_op, wildcard

# A small input keeps this notebook quick; bench/byoc.py runs the full 224×224 network.
IMAGE = 32
mod, params = testing.vgg11(image_size=IMAGE, num_classes=10, hidden=256)
data = np.random.default_rng(0).standard_normal((1, 3, IMAGE, IMAGE)).astype("float32")
mod = relax.transform.BindParams("main", params)(mod)  # weights become constants


# %% [markdown]
# ## What is in the graph?
#
# A visitor counts the operators, as the original demo's `profile_graph` does.

# %%
def profile_graph(func):
    counts = {}

    @relax.expr_functor.visitor
    class OpProfiler(relax.PyExprVisitor):
        def visit_call_(self, call):
            name = getattr(call.op, "name", None) or getattr(call.op, "global_symbol", None) \
                or call.op.gvar.name_hint
            counts[name] = counts.get(name, 0) + 1
            super().visit_call_(call)

    OpProfiler().visit_expr(func)
    print(f"Total number of operators: {sum(counts.values())}")
    for name, n in counts.items():
        print(f"\t{name}: {n}")


profile_graph(mod["main"])

# %% [markdown]
# ## Patterns
#
# `make_fused_bias_activation_pattern` builds `relu(add(conv2d(data, weight), bias))`. The
# built-in `blas` backend registers such patterns (under names `blas.*`) together with a
# check that keeps out what its kernels do not handle (grouped or dilated convolutions).

# %%
pattern, annotations = make_fused_bias_activation_pattern(
    "relax.nn.conv2d", with_bias=True, activation="relax.nn.relu")
print("annotated sub-patterns:", sorted(annotations))
print("blas patterns:", [p.name for p in get_patterns_with_prefix("blas")])

# %% [markdown]
# ## Partition
#
# `FuseOpsByPattern` wraps every match in a *composite* function; with
# `annotate_codegen=True` each is then wrapped once more, in a function that names the backend
# that will compile it (`Codegen`) and calls the composite, inlined as a local function.

# %%
partitioned = relax.transform.FuseOpsByPattern(
    get_patterns_with_prefix("blas"), bind_constants=True, annotate_codegen=True)(mod)
composites = [(gv.name_hint, f.attrs["Codegen"]) for gv, f in partitioned.functions.items()
              if "Codegen" in f.attrs]
print(f"{len(composites)} offloaded functions, e.g.", composites[:2])
print(partitioned["main"].script()[:1500])

# %% [markdown]
# ## Offload and run
#
# `RunCodegen` hands every annotated function to `relax.ext.blas`, registers what it returns
# and turns the calls into `R.call_dps_packed`. Everything else is legalized to TIR and
# compiled by LLVM, as usual.

# %%
offloaded = relax.transform.RunCodegen()(partitioned)
profile_graph(offloaded["main"])


def build_and_time(module, label):
    vm = relax.VirtualMachine(relax.build(module, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.nd.array(data)).numpy()
    start = time.perf_counter()
    for _ in range(3):
        vm["main"](tvm.nd.array(data))
    print(f"{label}: {(time.perf_counter() - start) / 3 * 1e3:.1f} ms per inference")
    return out


own = build_and_time(mod, "tvmlite's own kernels")
blas = build_and_time(offloaded, "offloaded to blas   ")
reference = testing.numpy_vgg11(data, params)
np.testing.assert_allclose(blas, reference, rtol=1e-4, atol=1e-6)
np.testing.assert_allclose(own, reference, rtol=1e-4, atol=1e-6)
print("both agree with numpy; predicted class:", int(reference.argmax()))

# %% [markdown]
# ## Save it, load it elsewhere
#
# What `relax.ext.blas` returned is data as well as code: each function is a small *step
# program* (operator names, attributes, which input or earlier step each argument is) plus
# its weights. `export_library` writes them into the one file, beside the bytecode and the
# kernels, as TVM saves a BYOC module inside the library. Loading rebuilds them with the
# blas backend's own loader — JSON and `.npy` only, nothing unpickled — and keeps them on the
# loaded executable instead of registering them globally; a fresh process can run the file.

# %%
path = os.path.join(tempfile.mkdtemp(), "vgg11_blas.tvmlite")
relax.build(offloaded, target="llvm").export_library(path)
loaded = tvm.runtime.load_module(path)
kinds = sorted({f.kind for f in loaded.externals.values()})
print(f"{len(loaded.externals)} saved external functions, kinds {kinds}")
again = relax.VirtualMachine(loaded, tvm.cpu())["main"](tvm.nd.array(data)).numpy()
np.testing.assert_allclose(again, blas, rtol=1e-6, atol=1e-7)
print("the loaded model gives the same answer")

# %% [markdown]
# ## A backend of your own
#
# Here is a complete backend in a dozen lines: it takes `add` followed by `relu`, and runs it
# with numpy. Registering `relax.ext.mybackend` is all it takes; nothing is rebuilt. With
# `bind_constants=False` the bias constants become arguments, so each function gets `(a, b)`.

# %%
@tvm.register_func("relax.ext.mybackend", override=True)
def my_codegen(functions, options, module):
    def add_relu(a, b, out):
        np.maximum(np.from_dlpack(a) + np.from_dlpack(b), 0, out=np.from_dlpack(out))

    print(f"mybackend compiles {len(functions)} function(s)")
    return [add_relu for _ in functions]


add_relu = is_op("relax.nn.relu")(is_op("relax.add")(wildcard(), wildcard()))
mine = relax.transform.FuseOpsByPattern([("mybackend.add_relu", add_relu)],
                                        bind_constants=False, annotate_codegen=True)(mod)
mine = relax.transform.RunCodegen()(mine)
mine_out = build_and_time(mine, "offloaded to mybackend")
np.testing.assert_allclose(mine_out, reference, rtol=1e-4, atol=1e-6)

# %% [markdown]
# `add_relu` is a plain Python function: it runs in this process, but a file could not bring
# it back, so exporting refuses — and says what to return instead — rather than writing a
# model that fails after loading:

# %%
try:
    relax.build(mine, target="llvm").export_library(path)
except ValueError as err:
    print(err)

# %% [markdown]
# A codegen that returns `ExternalFunction`s exports. The shortest way: let tvmlite's numpy
# engine run each function; `compile_function` writes it as a step program, as blas does.

# %%
@tvm.register_func("relax.ext.mybackend", override=True)
def my_exportable_codegen(functions, options, module):
    return [compile_function(f, module) for f in functions]


mine = relax.transform.FuseOpsByPattern([("mybackend.add_relu", add_relu)],
                                        bind_constants=False, annotate_codegen=True)(mod)
relax.build(relax.transform.RunCodegen()(mine), target="llvm").export_library(path)
mine_loaded = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
np.testing.assert_allclose(mine_loaded["main"](tvm.nd.array(data)).numpy(), mine_out,
                           rtol=1e-6, atol=1e-7)
print("mybackend's model, exported and loaded, agrees")

# %% [markdown]
# And the mistake of seed 004 — asking for a codegen nobody registered — now says what to do:

# %%
unknown = relax.transform.FuseOpsByPattern([("nosuch.add_relu", add_relu)],
                                           annotate_codegen=True)(mod)
try:
    relax.transform.RunCodegen()(unknown)
except ValueError as err:
    print(err)
