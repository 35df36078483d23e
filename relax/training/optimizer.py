"""`tvm.relax.training.optimizer`: SGD, MomentumSGD and Adam as relax functions.

`opt = SGD(0.1).init(params)` records the parameters (float tensor variables of one dtype) and
the initial optimizer state (`opt.state`, a tuple of arrays, the step count first);
`opt.get_function()` is `f(params, gradients, optim_states) -> (params_new,
optim_states_new)`, each argument a tuple, one step of the update.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from ... import nd
from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.ops.base import scalar_const
from ...transforms.block_builder import BlockBuilder
from .. import op


def _exact_one_minus(x: float) -> float:
    """1 - x in decimal, so that 1 - 0.999 is 0.001 exactly as written."""
    return float(Decimal(1) - Decimal(str(x)))


def _zeros_like(p: rx.Var) -> Any:
    sinfo = p.struct_info
    return nd.array(np.zeros([int(d) for d in sinfo.shape], sinfo.dtype))


class Optimizer:
    """The parameters, their dtype and the state; subclasses build the update function."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.param_list: list[rx.Var] | None = None
        self.state: tuple[Any, ...] | None = None
        self.dtype: str | None = None

    def init(self, params: Any) -> "Optimizer":
        self._set_params_and_dtype(params if isinstance(params, list) else [params])
        self.state = self._initial_state()
        return self

    def _initial_state(self) -> tuple[Any, ...] | None:
        return None

    def _set_params_and_dtype(self, params: list[Any]) -> None:
        dtype = None
        for x in params:
            if not isinstance(x, rx.Var):
                raise ValueError(f"parameter {x} is not a Var")
            sinfo = x.struct_info
            if not isinstance(sinfo, si.TensorStructInfo):
                raise ValueError(f"optimizers take tensor parameters, but {x.name_hint} is "
                                 f"{sinfo}")
            if not sinfo.dtype.startswith(("float", "bfloat")):
                raise ValueError(f"optimizers take floating point parameters, but "
                                 f"{x.name_hint} is {sinfo.dtype}")
            if dtype is not None and sinfo.dtype != dtype:
                raise ValueError(f"all parameters need one dtype, but {x.name_hint} is "
                                 f"{sinfo.dtype} and an earlier one {dtype}")
            if sum(p is x for p in params) > 1:
                raise ValueError(f"parameter {x.name_hint} appears more than once")
            dtype = sinfo.dtype
        self.param_list, self.dtype = params, dtype

    def _check_init(self) -> None:
        if self.param_list is None or self.state is None or self.dtype is None:
            raise RuntimeError("Please call init() for the optimizer before calling "
                               "get_function()")

    def get_function(self) -> rx.Function:
        self._check_init()
        raise NotImplementedError()

    # -- the shape every optimizer function has -----------------------------------------------

    def _const(self, value: float) -> rx.Constant:
        return scalar_const(value, self.dtype)  # type: ignore[arg-type]

    def _build(self, extra_states: list[si.StructInfo], step: Any) -> rx.Function:
        """The function; `step(bb, states_var, new_states)` emits the update and returns
        the new parameters, having appended the new states after the step count."""
        self._check_init()
        sinfos = [p.struct_info for p in self.param_list]  # type: ignore[union-attr]
        params = rx.Var("params", si.TupleStructInfo(tuple(sinfos)))
        grads = rx.Var("gradients", si.TupleStructInfo(tuple(sinfos)))
        states = rx.Var("optim_states", si.TupleStructInfo(
            (si.TensorStructInfo((), "int64"), *extra_states)))
        bb = BlockBuilder()
        with bb.function(self.name, [params, grads, states]):
            with bb.dataflow():
                steps = bb.emit(rx.TupleGetItem(states, 0), "num_steps")
                new_states = [bb.emit(op.add(steps, scalar_const(1, "int64")),
                                      "num_steps_new")]
                new_params = step(bb, params, grads, states, new_states)
                params_new = bb.emit_output(rx.Tuple(tuple(new_params)), "params_new")
                states_new = bb.emit_output(rx.Tuple(tuple(new_states)), "optim_states_new")
            bb.emit_func_output(rx.Tuple((params_new, states_new)))
        return bb.get()[self.name]

    def _decayed(self, bb: BlockBuilder, name: str, p: rx.Var, g: rx.Var,
                 weight_decay: float) -> rx.Var:
        if not weight_decay:
            return g
        return bb.emit(op.add(op.multiply(self._const(weight_decay), p), g), name + "_grad_new")


class SGD(Optimizer):
    """p -= lr * (g + weight_decay * p)."""

    def __init__(self, lr: float, weight_decay: float = 0) -> None:
        super().__init__("SGD")
        self.lr, self.weight_decay = float(lr), float(weight_decay)

    def _initial_state(self) -> tuple[Any, ...]:
        return (nd.array(np.zeros((), "int64")),)

    def get_function(self) -> rx.Function:
        def step(bb: BlockBuilder, params: rx.Var, grads: rx.Var, states: rx.Var,
                 new_states: list[rx.Var]) -> list[rx.Var]:
            out = []
            for i, x in enumerate(self.param_list):  # type: ignore[arg-type]
                name = x.name_hint
                p = bb.emit(rx.TupleGetItem(params, i), name)
                g = self._decayed(bb, name, p, bb.emit(rx.TupleGetItem(grads, i),
                                                       name + "_grad"), self.weight_decay)
                out.append(bb.emit(op.subtract(p, op.multiply(self._const(self.lr), g)),
                                   name + "_new"))
            return out
        return self._build([], step)


class MomentumSGD(Optimizer):
    """v = momentum * v + (1 - dampening) * g; p -= lr * v (nesterov: lr * (g + momentum
    * v))."""

    def __init__(self, lr: float, momentum: float, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False) -> None:
        super().__init__("MomentumSGD")
        self.lr, self.momentum = float(lr), float(momentum)
        self.weight_decay, self.dampening = float(weight_decay), float(dampening)
        self.nesterov = nesterov

    def _initial_state(self) -> tuple[Any, ...]:
        return (nd.array(np.zeros((), "int64")),
                *(_zeros_like(p) for p in self.param_list))  # type: ignore[union-attr]

    def get_function(self) -> rx.Function:
        momentum = self._const(self.momentum)

        def step(bb: BlockBuilder, params: rx.Var, grads: rx.Var, states: rx.Var,
                 new_states: list[rx.Var]) -> list[rx.Var]:
            out = []
            for i, x in enumerate(self.param_list):  # type: ignore[arg-type]
                name = x.name_hint
                p = bb.emit(rx.TupleGetItem(params, i), name)
                g = bb.emit(rx.TupleGetItem(grads, i), name + "_grad")
                v = bb.emit(rx.TupleGetItem(states, i + 1), name + "_v")
                g = self._decayed(bb, name, p, g, self.weight_decay)
                damped = op.multiply(self._const(_exact_one_minus(self.dampening)), g) \
                    if self.dampening else g
                v_new = bb.emit(op.add(op.multiply(momentum, v), damped), name + "_v_new")
                g_new = bb.emit(op.add(g, op.multiply(momentum, v_new)), name + "_g_nest") \
                    if self.nesterov else v_new
                out.append(bb.emit(op.subtract(p, op.multiply(self._const(self.lr), g_new)),
                                   name + "_new"))
                new_states.append(v_new)
            return out
        return self._build([p.struct_info for p in self.param_list], step)  # type: ignore


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; the state holds the step count, beta1^t,
    beta2^t, then the first moments and the second moments of every parameter."""

    def __init__(self, lr: float, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0) -> None:
        super().__init__("Adam")
        self.lr, self.eps, self.weight_decay = float(lr), float(eps), float(weight_decay)
        self.beta1, self.beta2 = float(betas[0]), float(betas[1])

    def _initial_state(self) -> tuple[Any, ...]:
        plist = self.param_list or []
        return (nd.array(np.zeros((), "int64")), nd.array(np.ones((), self.dtype)),
                nd.array(np.ones((), self.dtype)), *(_zeros_like(p) for p in plist),
                *(_zeros_like(p) for p in plist))

    def get_function(self) -> rx.Function:
        plist = self.param_list or []
        n = len(plist)
        c = self._const
        one = c(1)

        def step(bb: BlockBuilder, params: rx.Var, grads: rx.Var, states: rx.Var,
                 new_states: list[rx.Var]) -> list[rx.Var]:
            # NOTE: the state items are bound before use, as TVM's normalizer binds them
            b1 = bb.emit(op.multiply(bb.emit(rx.TupleGetItem(states, 1)), c(self.beta1)),
                         "beta1_prod")
            b2 = bb.emit(op.multiply(bb.emit(rx.TupleGetItem(states, 2)), c(self.beta2)),
                         "beta2_prod")
            moments: list[Any] = [None] * (2 * n)
            out = []
            for i, x in enumerate(plist):
                name = x.name_hint
                p = bb.emit(rx.TupleGetItem(params, i), name)
                g = bb.emit(rx.TupleGetItem(grads, i), name + "_grad")
                m = bb.emit(rx.TupleGetItem(states, i + 3), name + "_m")
                v = bb.emit(rx.TupleGetItem(states, i + 3 + n), name + "_v")
                g = self._decayed(bb, name, p, g, self.weight_decay)
                m_new = bb.emit(op.add(op.multiply(c(self.beta1), m), op.multiply(
                    c(_exact_one_minus(self.beta1)), g)), name + "_m_new")
                v_new = bb.emit(op.add(op.multiply(c(self.beta2), v), op.multiply(
                    c(_exact_one_minus(self.beta2)), op.multiply(g, g))), name + "_v_new")
                m_hat = bb.emit(op.divide(m_new, op.subtract(one, b1)), name + "_m_hat")
                v_hat = bb.emit(op.divide(v_new, op.subtract(one, b2)), name + "_v_hat")
                out.append(bb.emit(op.subtract(p, op.multiply(c(self.lr), op.divide(
                    m_hat, op.add(op.sqrt(v_hat), c(self.eps))))), name + "_new"))
                moments[i], moments[i + n] = m_new, v_new
            new_states.extend([b1, b2, *moments])
            return out
        scalar = si.TensorStructInfo((), self.dtype)
        return self._build([scalar, scalar, *([p.struct_info for p in plist] * 2)], step)
