"""FuseTransposeMatmul: a linear layer's `matmul(x, permute_dims(w))` becomes one dense kernel
reading w in place; the transpose disappears unless something else uses it."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import expr as rx
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.topi.schedule_mode import default_schedules

RNG = np.random.default_rng(3)


@I.ir_module
class Linear:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((8, 16), "float32"),
             b: R.Tensor((8,), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.add(R.matmul(x, wt), b)
            R.output(y)
        return y


@I.ir_module
class TransposeAlsoReturned:
    @R.function
    def main(x: R.Tensor((2, 16), "float32"), w: R.Tensor((8, 16), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w, axes=[1, 0])
            y = R.matmul(x, wt)
            R.output(y, wt)
        return (y, wt)


@I.ir_module
class Batched:
    @R.function
    def main(x: R.Tensor((3, 2, 16), "float32"), w: R.Tensor((3, 8, 16), "float32")):
        with R.dataflow():
            y = R.matmul(x, R.permute_dims(w, axes=[0, 2, 1]))
            R.output(y)
        return y


def fuse_scheduled(mod):
    """The pass as the build pipelines run it (default schedules on: the dense kernel)."""
    with default_schedules():
        return relax.transform.FuseTransposeMatmul()(mod)


def ops_of(mod) -> str:
    """The printed module's graph function (where the calls are)."""
    text = mod.script()
    return text[text.index("@R.function"):]


def test_linear_becomes_one_dense_kernel() -> None:
    mod = fuse_scheduled(Linear)
    text = ops_of(mod)
    assert "R.permute_dims" not in text and "R.matmul" not in text
    assert "R.call_tir(cls.dense, (x, w)" in text
    x, w = RNG.random((5, 16), "float32"), RNG.random((8, 16), "float32")
    b = RNG.random(8, "float32")
    for m in (Linear, mod):
        vm = relax.VirtualMachine(relax.build(m, "llvm"), tvm.cpu())
        np.testing.assert_allclose(vm["main"](x, w, b).numpy(), x @ w.T + b, rtol=1e-5)


def test_a_transpose_used_elsewhere_stays() -> None:
    mod = fuse_scheduled(TransposeAlsoReturned)
    text = ops_of(mod)
    assert "R.permute_dims" in text and "cls.dense" in text
    x, w = RNG.random((2, 16), "float32"), RNG.random((8, 16), "float32")
    y, wt = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](x, w)
    np.testing.assert_allclose(y.numpy(), x @ w.T, rtol=1e-5)
    np.testing.assert_array_equal(wt.numpy(), w.T)


def test_batched_matmul_is_left_to_legalization() -> None:
    mod = fuse_scheduled(Batched)
    assert ops_of(mod) == ops_of(Batched)


def bound_linear(rows: int):
    """A linear layer whose weight is a constant (torch/ONNX imports bind the weights)."""
    w = RNG.random((8, 16), "float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((rows, 16), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            wt = bb.emit(relax.op.permute_dims(relax.const(w)))
            y = bb.emit_output(relax.op.matmul(x, wt))
        bb.emit_func_output(y)
    return bb.get(), w


def test_a_constant_weight_is_packed_once_at_build_time() -> None:
    mod, w = bound_linear(rows=4)
    text = ops_of(fuse_scheduled(mod))
    # the packed matmul kernel reading the weight's panels: no transpose, no dense kernel
    assert "R.permute_dims" not in text and "cls.dense" not in text
    assert "R.call_tir(cls.matmul_packed, (x, R.const(" in text, text
    folded = fuse_scheduled(mod)["main"]
    consts = [c for blk in folded.body.blocks for b in blk.bindings
              for c in b.value.args[1].fields if isinstance(c, rx.Constant)]
    assert len(consts) == 1 and consts[0].data.numpy().flags.c_contiguous
    panels = consts[0].data.numpy()
    lanes = panels.shape[2]
    assert panels.shape == (8 // lanes, 16, lanes)
    for j in range(8):  # column j of w.T is row j of w: in panel j // lanes, lane j % lanes
        np.testing.assert_array_equal(panels[j // lanes, :, j % lanes], w[j])
    x = RNG.random((4, 16), "float32")
    y = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](x)
    np.testing.assert_allclose(y.numpy(), x @ w.T, rtol=1e-5)


def test_a_single_row_keeps_the_weight_as_it_lies() -> None:
    mod, _ = bound_linear(rows=1)
    assert "cls.dense" in ops_of(fuse_scheduled(mod))


def test_plain_form_is_tvms_nt_matmul() -> None:
    # apache-tvm 0.27 turns Linear into call_tir(NT_matmul, (x, w)): one kernel named and
    # blocked NT_matmul with loops i0, i1, k reading w[i1, k]; the transpose is gone
    mod = relax.transform.FuseTransposeMatmul()(Linear)
    assert sorted(mod.names()) == ["NT_matmul", "main"]
    kernel = mod["NT_matmul"].script()
    assert 'T.block("NT_matmul")' in kernel or 'T.sblock("NT_matmul")' in kernel
    assert "w[v_i1, v_k]" in kernel and "permute_dims" not in ops_of(mod)
    x = np.random.default_rng(0).standard_normal((4, 16)).astype("float32")
    w = np.random.default_rng(1).standard_normal((8, 16)).astype("float32")
    b = np.arange(8, dtype="float32")
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x, w, b).numpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)
