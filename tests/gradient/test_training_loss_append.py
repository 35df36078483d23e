"""relax.training.loss functions (values against numpy) and AppendLoss."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.relax.training import AppendLoss, loss
from tvmlite.script import ir as I, relax as R

RNG = np.random.default_rng(7)


def _run(func: relax.Function, *args: np.ndarray) -> np.ndarray:
    mod = tvm.IRModule({"f": func})
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["f"](*[tvm.nd.array(a) for a in args]).numpy()


def _log_softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


@pytest.mark.parametrize("reduction,reduce", [("mean", np.mean), ("sum", np.sum),
                                              ("none", lambda a: a)])
def test_l1_and_mse_losses(reduction: str, reduce: object) -> None:
    p, t = RNG.normal(size=(3, 5)).astype("float32"), RNG.normal(size=(3, 5)).astype("float32")
    sinfo = relax.TensorStructInfo((3, 5), "float32")
    got = _run(loss.L1Loss(reduction)(sinfo, sinfo), p, t)
    np.testing.assert_allclose(got, reduce(np.abs(p - t)), rtol=1e-5)
    got = _run(loss.MSELoss(reduction)(sinfo, sinfo), p, t)
    np.testing.assert_allclose(got, reduce((p - t) ** 2), rtol=1e-5)


def test_cross_entropy_losses() -> None:
    p = RNG.normal(size=(4, 3)).astype("float32")
    labels = np.array([0, 2, 1, 2], "int64")
    w = np.array([1.0, 2.0, 0.5], "float32")
    f = loss.CrossEntropyLoss()(relax.TensorStructInfo((4, 3), "float32"),
                                relax.TensorStructInfo((4,), "int64"),
                                relax.TensorStructInfo((3,), "float32"))
    picked = -_log_softmax(p)[np.arange(4), labels] * w[labels]
    np.testing.assert_allclose(_run(f, p, labels, w), picked.sum() / w[labels].sum(),
                               rtol=1e-5)
    one_hot = np.eye(3, dtype="int64")[labels]
    f = loss.CategoricalCrossEntropyLoss("sum")(relax.TensorStructInfo((4, 3), "float32"),
                                                relax.TensorStructInfo((4, 3), "int64"))
    np.testing.assert_allclose(_run(f, p, one_hot), -(_log_softmax(p) * one_hot).sum(),
                               rtol=1e-5)
    with pytest.raises(TypeError):
        loss.CategoricalCrossEntropyLoss()(relax.TensorStructInfo((4, 3), "float32"),
                                           relax.TensorStructInfo((4, 3), "float32"))
    with pytest.raises(ValueError):
        loss.L1Loss("max")


@I.ir_module
class Backbone:
    @R.function
    def predict(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            state = R.add(w, w)
            R.output(y, state)
        return (y, state)


def test_append_loss_joins_the_blocks_and_returns_the_states() -> None:
    sinfo = relax.TensorStructInfo((2, 3), "float32")
    after = AppendLoss("predict", loss.MSELoss("sum")(sinfo, sinfo))(Backbone)

    @R.function
    def expected(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 3), "float32"),
                 targets: R.Tensor((2, 3), "float32")):
        R.func_attr({"global_symbol": "predict_loss"})
        with R.dataflow():
            y = R.matmul(x, w)  # the prediction is no block output any more
            state = R.add(w, w)
            lv = R.subtract(y, targets)
            lv1 = R.multiply(lv, lv)
            gv = R.sum(lv1)
            R.output(state, gv)
        return (gv, state)

    assert_structural_equal(after["predict_loss"], expected)
    assert_structural_equal(after["predict"], Backbone["predict"])


def test_append_loss_errors() -> None:
    scalar = relax.TensorStructInfo((), "float32")
    with pytest.raises(RuntimeError, match="scalar"):  # the loss must give a scalar
        AppendLoss("predict", loss.MSELoss("none")(relax.TensorStructInfo((2, 3), "float32"),
                                                   relax.TensorStructInfo((2, 3), "float32"))
                   )(Backbone)
    with pytest.raises(RuntimeError, match="does not fit"):
        AppendLoss("predict", loss.MSELoss()(scalar, scalar))(Backbone)
    with pytest.raises(RuntimeError, match="fewer"):
        AppendLoss("predict", loss.MSELoss()(scalar, scalar), 3)(Backbone)
