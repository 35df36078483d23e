"""relax.training.optimizer: SGD, MomentumSGD and Adam steps against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.training.optimizer import SGD, Adam, MomentumSGD

RNG = np.random.default_rng(3)


def _params() -> list[relax.Var]:
    return [relax.Var("w", relax.TensorStructInfo((2, 3), "float64")),
            relax.Var("b", relax.TensorStructInfo((3,), "float64"))]


def _steps(opt: object, params: list[np.ndarray], grads: list[list[np.ndarray]]) -> tuple:
    """Run the optimizer's function once per gradient list; the final params and state."""
    mod = tvm.IRModule({opt.name: opt.get_function()})
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    p = tuple(tvm.nd.array(x) for x in params)
    state = opt.state
    for g in grads:
        p, state = vm[opt.name](p, tuple(tvm.nd.array(x) for x in g), state)
    return [x.numpy() for x in p], [x.numpy() for x in state]


def _data() -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    params = [RNG.normal(size=(2, 3)), RNG.normal(size=(3,))]
    grads = [[RNG.normal(size=(2, 3)), RNG.normal(size=(3,))] for _ in range(3)]
    return params, grads


def test_sgd_with_weight_decay() -> None:
    params, grads = _data()
    got, state = _steps(SGD(0.1, weight_decay=0.01).init(_params()), params, grads)
    want = [p.copy() for p in params]
    for g in grads:
        want = [p - 0.1 * (gi + 0.01 * p) for p, gi in zip(want, g)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert int(state[0]) == 3


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_sgd(nesterov: bool) -> None:
    params, grads = _data()
    opt = MomentumSGD(0.1, 0.9, dampening=0.2, weight_decay=0.05, nesterov=nesterov)
    got, state = _steps(opt.init(_params()), params, grads)
    want, vel = [p.copy() for p in params], [np.zeros_like(p) for p in params]
    for g in grads:
        g = [gi + 0.05 * p for gi, p in zip(g, want)]
        vel = [0.9 * v + 0.8 * gi for v, gi in zip(vel, g)]
        step = [gi + 0.9 * v for gi, v in zip(g, vel)] if nesterov else vel
        want = [p - 0.1 * s for p, s in zip(want, step)]
    for a, b in zip(got + state[1:], want + vel):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_adam() -> None:
    params, grads = _data()
    got, state = _steps(Adam(0.01, (0.8, 0.99), eps=1e-6).init(_params()), params, grads)
    want = [p.copy() for p in params]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    for t, g in enumerate(grads, start=1):
        m = [0.8 * mi + 0.2 * gi for mi, gi in zip(m, g)]
        v = [0.99 * vi + 0.01 * gi * gi for vi, gi in zip(v, g)]
        want = [p - 0.01 * (mi / (1 - 0.8 ** t)) / (np.sqrt(vi / (1 - 0.99 ** t)) + 1e-6)
                for p, mi, vi in zip(want, m, v)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(state[1], 0.8 ** 3, rtol=1e-12)


def test_optimizer_checks_its_parameters() -> None:
    with pytest.raises(RuntimeError, match="init"):
        SGD(0.1).get_function()
    w = relax.Var("w", relax.TensorStructInfo((2,), "float32"))
    with pytest.raises(ValueError, match="more than once"):
        SGD(0.1).init([w, w])
    with pytest.raises(ValueError, match="floating point"):
        SGD(0.1).init(relax.Var("i", relax.TensorStructInfo((2,), "int32")))
    with pytest.raises(ValueError, match="one dtype"):
        SGD(0.1).init([w, relax.Var("h", relax.TensorStructInfo((2,), "float64"))])
