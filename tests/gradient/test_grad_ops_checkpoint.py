"""R.grad.* operators (struct info, printing, legalized values) and checkpointed gradients."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grad_helpers import adjoint, make_module, rand  # noqa: E402

import tvmlite as tvm  # noqa: E402
from tvmlite import relax  # noqa: E402
from tvmlite.ir import assert_structural_equal  # noqa: E402
from tvmlite.relax.testing import nn  # noqa: E402
from tvmlite.script import from_source, ir as I, relax as R  # noqa: E402
from tvmlite.testing import check_numerical_grads  # noqa: E402

grad = relax.op.grad


def _var(name: str, shape: tuple, dtype: str = "float32") -> relax.Var:
    return relax.Var(name, relax.TensorStructInfo(shape, dtype))


def test_backward_ops_have_their_inputs_struct_info() -> None:
    x = _var("x", (2, 3, 6, 6))
    g = _var("g", (2, 3, 3, 3))
    for make in (grad.max_pool2d_backward, grad.avg_pool2d_backward):
        call = make(g, x, (2, 2), (2, 2))
        assert call.op.name == f"relax.grad.{make.__name__}"
        assert_structural_equal(call.struct_info, x.struct_info)
    t = _var("t", (4,), "int64")
    assert_structural_equal(grad.take_backward(_var("g2", (2, 4)), _var("y", (2, 5)), t, 1)
                            .struct_info, relax.TensorStructInfo((2, 5), "float32"))
    assert grad.no_grad(x).args[0] is x


def test_checkpoint_markers_need_a_variable() -> None:
    x = _var("x", (2,))
    assert_structural_equal(grad.start_checkpoint(x).struct_info, x.struct_info)
    with pytest.raises(TypeError):
        grad.end_checkpoint(relax.Tuple((x, x)))
    with pytest.raises(TypeError):
        grad.start_checkpoint(relax.const(np.ones(2, "float32")))


def test_grad_ops_print_and_parse_back() -> None:
    @I.ir_module
    class Mod:
        @R.function
        def main(g: R.Tensor((), "float32"), x: R.Tensor((2, 3), "float32"),
                 t: R.Tensor((2,), "int64")):
            a = R.grad.nll_loss_backward(g, x, t, reduction="sum", ignore_index=1)
            b = R.grad.start_checkpoint(a)
            return b

    text = Mod.script()
    assert 'R.grad.nll_loss_backward(g, x, t, reduction="sum", ignore_index=1)' in text
    assert_structural_equal(from_source(text), Mod)


def test_legalized_backward_ops_match_numpy() -> None:
    bb = relax.BlockBuilder()
    g, x, i = _var("g", (2, 4)), _var("x", (2, 3)), _var("i", (4,), "int64")
    with bb.function("main", [g, x, i]):
        out = bb.emit(grad.take_backward(g, x, i, axis=1))
        bb.emit_func_output(out)
    ex = relax.build(relax.transform.LegalizeOps()(bb.get()), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    gv = rand(2, 4).astype("float32")
    idx = np.array([2, 0, 2, 2], "int64")
    want = np.zeros((2, 3), "float32")
    np.add.at(want, (slice(None), idx), gv)  # each taken column gathers its gradients
    got = vm["main"](tvm.nd.array(gv), tvm.nd.array(np.zeros((2, 3), "float32")),
                     tvm.nd.array(idx)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _mlp_loss(x: relax.Expr, w: relax.Expr) -> relax.Expr:
    op = relax.op
    h = nn.emit_checkpoint(lambda a: relax.BlockBuilder.current().emit(
        op.tanh(op.matmul(a, w))), x)
    return op.sum(op.multiply(h, h))


def test_checkpointed_stage_is_recomputed_with_the_same_gradients() -> None:
    x, w = rand(2, 3), rand(3, 3)
    marked = make_module(_mlp_loss, [x, w])
    after = relax.transform.Gradient("main")(marked)
    names = [b.var.name_hint for b in after["main_adjoint"].body.blocks[0].bindings]
    assert any(n.endswith("_cp") for n in names)  # the tanh is computed again
    ops = {b.value.op.name for b in after["main_adjoint"].body.blocks[0].bindings
           if isinstance(b.value, relax.Call)}
    assert not ops & {"relax.grad.start_checkpoint", "relax.grad.end_checkpoint"}
    plain = make_module(lambda a, b: relax.op.sum(relax.op.multiply(
        relax.op.tanh(relax.op.matmul(a, b)), relax.op.tanh(relax.op.matmul(a, b)))), [x, w])
    loss1, grads1 = adjoint(marked, [x, w])
    loss2, grads2 = adjoint(plain, [x, w])
    np.testing.assert_allclose(loss1, loss2, rtol=1e-12)
    for a, b in zip(grads1, grads2):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    h = np.tanh(x @ w)  # and both are right
    np.testing.assert_allclose(grads1[1], x.T @ (2 * h * (1 - h * h)), rtol=1e-10)


def test_check_numerical_grads_accepts_right_and_refuses_wrong_gradients() -> None:
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    def f(a: np.ndarray) -> float:
        return float(np.sum(a ** 3))
    check_numerical_grads(f, [x], [3 * x ** 2])
    check_numerical_grads(lambda a: float(np.sum(a ** 3)), {"a": x}, {"a": 3 * x ** 2})
    with pytest.raises(AssertionError):
        check_numerical_grads(f, [x], [2 * x ** 2])


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_legalized_nll_loss_backward_without_weights(reduction: str) -> None:
    shape = (3,) if reduction == "none" else ()
    bb = relax.BlockBuilder()
    g, x, t = _var("g", shape), _var("x", (3, 4)), _var("t", (3,), "int64")
    with bb.function("main", [g, x, t]):
        out = bb.emit(grad.nll_loss_backward(g, x, t, reduction=reduction, ignore_index=2))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    gv = np.full(shape, 0.5, "float32") + np.arange(int(np.prod(shape)), dtype="float32"
                                                     ).reshape(shape)
    labels = np.array([1, 2, 3], "int64")  # the second one is ignored
    kept = (labels != 2).astype("float32")
    scale = gv * kept if reduction != "mean" else gv * kept / kept.sum()
    want = np.zeros((3, 4), "float32")
    want[np.arange(3), labels] = -scale
    got = vm["main"](tvm.nd.array(gv), tvm.nd.array(np.zeros((3, 4), "float32")),
                     tvm.nd.array(labels)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
