"""SetupTrainer + Trainer: a linear model trained with SGD, step by step against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.training import SetupTrainer, Trainer
from tvmlite.relax.training.loss import MSELoss
from tvmlite.relax.training.optimizer import SGD
from tvmlite.script import ir as I, relax as R


@I.ir_module
class Linear:
    I.module_attrs({"param_num": 2, "state_num": 0})

    @R.function
    def backbone(x: R.Tensor((4, 3), "float64"), w: R.Tensor((3, 2), "float64"),
                 b: R.Tensor((2,), "float64")):
        with R.dataflow():
            y = R.add(R.matmul(x, w), b)
            R.output(y)
        return y


def _train_mod() -> tvm.IRModule:
    out = relax.TensorStructInfo((4, 2), "float64")
    return SetupTrainer(MSELoss("sum"), SGD(0.05), [out, out])(Linear)


def test_setup_trainer_adds_the_training_functions() -> None:
    mod = _train_mod()
    assert {"backbone", "backbone_loss", "backbone_loss_adjoint", "optimizer"} <= \
        set(mod.names())
    assert int(mod.attrs["input_num"]) == 1
    assert [int(s.numpy()) for s in mod.attrs["optim_state"]] == [0]  # the step count


def test_trainer_steps_match_numpy_sgd() -> None:
    mod = _train_mod()
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    trainer = Trainer(mod, vm, tvm.cpu())
    rng = np.random.default_rng(0)
    w, b = rng.normal(size=(3, 2)), rng.normal(size=(2,))
    trainer.load_params({"w": w, "b": b})
    x, t = rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    for _ in range(4):
        err = x @ w + b - t
        loss = trainer.update(x, t)
        np.testing.assert_allclose(loss.numpy(), np.sum(err ** 2), rtol=1e-10)
        w, b = w - 0.05 * 2 * x.T @ err, b - 0.05 * 2 * err.sum(axis=0)
    params = trainer.export_params()
    np.testing.assert_allclose(params["w"].numpy(), w, rtol=1e-10)
    np.testing.assert_allclose(trainer.predict(x).numpy(), x @ w + b, rtol=1e-10)


def test_setup_trainer_and_trainer_errors() -> None:
    out = relax.TensorStructInfo((4, 2), "float64")
    bare = Linear.without_attr("param_num")
    with pytest.raises(ValueError, match="param_num"):
        SetupTrainer(MSELoss(), SGD(0.1), [out, out])(bare)
    mod = _train_mod()
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    trainer = Trainer(mod, vm, tvm.cpu(), zero_init_param_state=False)
    with pytest.raises(RuntimeError, match="not initialized"):
        trainer.predict(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="no parameter"):
        trainer.load_params({"v": np.zeros(2)})
