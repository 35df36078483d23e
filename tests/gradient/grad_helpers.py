"""Helpers for the gradient tests: differentiate a function with relax.transform.Gradient,
run its adjoint on the VM, and compare with central finite differences of the function."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import tvmlite as tvm
from tvmlite import relax

RNG = np.random.default_rng(16)


def make_module(build: Callable[..., Any], inputs: list[np.ndarray]) -> Any:
    """`main(*inputs)` whose one dataflow block returns the scalar `build(*params)`."""
    bb = relax.BlockBuilder()
    params = [relax.Var(f"p{i}", relax.TensorStructInfo(a.shape, str(a.dtype)))
              for i, a in enumerate(inputs)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(build(*params))
        bb.emit_func_output(out)
    return bb.get()


def _vm(mod: Any) -> Any:
    ex = relax.build(relax.transform.LegalizeOps()(mod), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())


def adjoint(mod: Any, inputs: list[np.ndarray], require: Any = None) -> tuple[float, list]:
    """The loss and the gradients `main_adjoint` computes."""
    vm = _vm(relax.transform.Gradient("main", require)(mod))
    loss, grads = vm["main_adjoint"](*[tvm.nd.array(a) for a in inputs])
    return float(loss.numpy()), [g.numpy() for g in grads]


def numeric_grads(mod: Any, inputs: list[np.ndarray], which: list[int],
                  eps: float = 1e-5) -> list[np.ndarray]:
    """d main / d inputs[i] by central differences, for each i in `which`."""
    vm = _vm(mod)

    def f(args: list[np.ndarray]) -> float:
        return float(vm["main"](*[tvm.nd.array(a) for a in args]).numpy())
    out = []
    for i in which:
        grad = np.zeros_like(inputs[i])
        for idx in np.ndindex(inputs[i].shape):
            up = [a.copy() for a in inputs]
            down = [a.copy() for a in inputs]
            up[i][idx] += eps
            down[i][idx] -= eps
            grad[idx] = (f(up) - f(down)) / (2 * eps)
        out.append(grad)
    return out


def check_gradient(build: Callable[..., Any], inputs: list[np.ndarray],
                   which: list[int] | None = None, rtol: float = 1e-5,
                   atol: float = 1e-6) -> None:
    """Gradient's adjoint of `build` agrees with finite differences (float64 inputs)."""
    which = list(range(len(inputs))) if which is None else which
    mod = make_module(build, inputs)
    params = mod["main"].params
    require = [params[i] for i in which]
    _, grads = adjoint(mod, inputs, require)
    for got, want in zip(grads, numeric_grads(mod, inputs, which)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def rand(*shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype("float64")
