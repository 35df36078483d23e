"""FuseElementwise: elementwise groups (chains and DAGs) become one single-loop kernel;
values used outside the group are not swallowed. Results against numpy."""

from __future__ import annotations

import math

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.transforms.fuse_elementwise import FuseElementwise

RNG = np.random.default_rng(9)
op = relax.op
erf = np.vectorize(math.erf)


def gelu_module(return_inner: bool = False):
    """ONNX's GELU after a bias add: y = x + b; y * (erf(y / 1.41) + 1) * 0.5."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 32), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((32,), "float32"))
    with bb.function("main", [x, b]):
        with bb.dataflow():
            y = bb.emit(op.add(x, b))
            e = bb.emit(op.erf(op.divide(y, relax.const(1.41, "float32"))))
            out = bb.emit(op.multiply(op.multiply(y, op.add(e, relax.const(1.0, "float32"))),
                                      relax.const(0.5, "float32")))
            res = bb.emit_output(relax.Tuple([out, e]) if return_inner else out)
        bb.emit_func_output(res)
    return bb.get()


def gelu_ref(x, b):
    y = x.astype(np.float64) + b
    return y * (erf(y / np.float32(1.41)) + 1) * 0.5, erf(y / np.float32(1.41))


def kernels(mod) -> list:
    return [f for _, f in mod.functions_items() if hasattr(f, "buffer_map")]


def test_a_dag_of_elementwise_ops_is_one_loop() -> None:
    fused = FuseElementwise()(gelu_module())
    (kernel,) = kernels(fused)
    assert kernel.script().count("T.sblock(") == 2  # the root block and one compute
    x, b = RNG.standard_normal((4, 32)).astype("float32"), RNG.standard_normal(32).astype(
        "float32")
    vm = relax.VirtualMachine(tvm.compile(gelu_module(), target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x, b).numpy(), gelu_ref(x, b)[0], rtol=1e-5,
                               atol=1e-6)


def test_a_value_read_outside_the_group_ends_it() -> None:
    mod = gelu_module(return_inner=True)
    fused = FuseElementwise()(mod)
    text = fused.script()
    assert "R.erf" not in text  # erf's group ends at erf itself: e is returned
    x, b = RNG.standard_normal((4, 32)).astype("float32"), RNG.standard_normal(32).astype(
        "float32")
    out, inner = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x, b)
    want_out, want_inner = gelu_ref(x, b)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inner.numpy(), want_inner, rtol=1e-5, atol=1e-6)


def test_a_shape_change_ends_the_group() -> None:
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((6, 8), "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit(op.exp(x))  # (1, 8)
            c = bb.emit(op.add(a, y))  # broadcasts to (6, 8): a new group starts here
            out = bb.emit_output(op.nn.relu(c))
        bb.emit_func_output(out)
    mod = bb.get()
    assert len(kernels(FuseElementwise()(mod))) == 1  # add + relu; exp left to legalization
    xv, yv = RNG.standard_normal((1, 8)).astype("float32"), RNG.standard_normal(
        (6, 8)).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](xv, yv).numpy(), np.maximum(np.exp(xv) + yv, 0),
                               rtol=1e-6)
