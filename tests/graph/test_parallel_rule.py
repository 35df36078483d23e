"""The default rule of kernels no other rule schedules (topi/parallel_rule.py): their big
computes get a parallel outer loop, small ones and already scheduled kernels stay as they
are, and the results are those of the serial kernel."""

from __future__ import annotations

import math

import numpy as np

import tvmlite as tvm
from tvmlite import relax, te, topi
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.topi.parallel_rule import parallelize_plain
from tvmlite.topi.schedule_mode import default_schedules

RNG = np.random.default_rng(7)


def parallel_loops(func) -> list[str]:
    return [line.strip() for line in func.script().splitlines() if "T.parallel" in line]


def softmax_func(shape):
    X = te.placeholder(shape, "float32", name="X")
    with default_schedules():
        Y = topi.nn.softmax(X, -1)
    parallelize_plain([Y])
    return te.create_prim_func([X, Y])


def test_each_big_stage_of_a_softmax_runs_in_parallel() -> None:
    func = softmax_func((2, 12, 64, 128))
    # max, exp, sum, normalize: each parallel over the 12 heads (the batch of 2 is too short)
    assert len(parallel_loops(func)) == 4, func.script()
    assert all("(12)" in line for line in parallel_loops(func))
    x = RNG.standard_normal((2, 12, 64, 128)).astype("float32")
    y = tvm.nd.array(np.zeros_like(x))
    tvm.build(func, target="llvm")["main"](tvm.nd.array(x), y)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(y.numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_small_and_symbolic_computes_stay_serial() -> None:
    assert parallel_loops(softmax_func((2, 8, 16))) == []
    n = te.var("n", "int64")
    X = te.placeholder((n, 4096), "float32", name="X")
    Y = topi.add(X, X)
    parallelize_plain([Y])
    assert parallel_loops(te.create_prim_func([X, Y])) == []


def test_a_scheduled_kernel_is_left_alone() -> None:
    A = te.placeholder((64, 256), "float32", name="A")
    B = te.placeholder((256, 64), "float32", name="B")
    with default_schedules():
        C = topi.nn.matmul(A, B)
    before = te.create_prim_func([A, B, C]).script()
    parallelize_plain([C])
    assert te.create_prim_func([A, B, C]).script() == before


@I.ir_module
class LayerNorm:
    @R.function
    def main(x: R.Tensor((1, 128, 768), "float32"), g: R.Tensor((768,), "float32"),
             b: R.Tensor((768,), "float32")):
        with R.dataflow():
            y = R.nn.layer_norm(x, g, b, axes=[-1])
            z = R.nn.gelu(y)
            R.output(z)
        return z


def test_the_build_gives_layer_norm_and_gelu_parallel_loops() -> None:
    ex = tvm.compile(LayerNorm, target="llvm")
    x = RNG.standard_normal((1, 128, 768)).astype("float32")
    g, b = RNG.standard_normal(768).astype("float32"), RNG.standard_normal(768).astype("float32")
    z = relax.VirtualMachine(ex, tvm.cpu())["main"](x, g, b).numpy()
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * g + b
    ref = y * 0.5 * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))
    np.testing.assert_allclose(z, ref, rtol=1e-4, atol=1e-5)
    with default_schedules():
        legal = relax.transform.LegalizeOps()(LayerNorm)
    kernels = {gv.name_hint: func for gv, func in legal.items()}
    for name in ("layer_norm", "gelu"):
        assert parallel_loops(kernels[name]), kernels[name].script()
