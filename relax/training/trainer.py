"""`tvm.relax.training.Trainer`: run a module made by SetupTrainer on a VirtualMachine,
keeping the parameters, model states and optimizer state between steps."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import nd
from ...ir import expr as rx
from ...ir.module import IRModule

Arrays = list[Any] | dict[str, Any]


def _shape(v: rx.Var) -> list[int]:
    return [int(d) for d in v.struct_info.shape]


class Trainer:
    """`Trainer(train_mod, vm, device)`; `update(inputs, targets)` runs one training step
    and returns the loss, `predict(*inputs)` runs the backbone."""

    BACKBONE_FUNC = "backbone"
    BACKBONE_LOSS_FUNC = "backbone_loss"
    ADJOINT_FUNC = "backbone_loss_adjoint"
    OPTIMIZER_FUNC = "optimizer"

    def __init__(self, train_mod: IRModule, vm: Any, device: Any,
                 zero_init_param_state: bool = True) -> None:
        attrs = dict(train_mod.attrs)
        self.mod = train_mod.without_attr("optim_state")
        self.vm, self.device = vm, device
        self._optim_state = [nd.array(d.numpy(), device) for d in attrs["optim_state"]]
        self._input_num = int(attrs["input_num"])
        self._param_num = int(attrs["param_num"])
        self._state_num = int(attrs["state_num"])
        first = self._input_num
        params = train_mod[self.ADJOINT_FUNC].params
        self._param_vars = list(params[first:first + self._param_num])
        self._state_vars = list(params[first + self._param_num:
                                       first + self._param_num + self._state_num])
        self._params: list[Any] = [None] * self._param_num
        self._states: list[Any] = [None] * self._state_num
        self._param_pos = {p.name_hint: i for i, p in enumerate(self._param_vars)}
        self._state_pos = {s.name_hint: i for i, s in enumerate(self._state_vars)}
        if zero_init_param_state:
            self.zero_init_params()
            self.zero_init_states()

    def _tensor(self, value: Any) -> Any:
        return nd.array(value.numpy() if hasattr(value, "numpy") else value, self.device)

    def _zeros(self, v: rx.Var) -> Any:
        return nd.array(np.zeros(_shape(v), v.struct_info.dtype), self.device)

    def xaiver_uniform_init_params(self) -> None:
        """Xavier-uniform parameters: U(-a, a), a = sqrt(6 / sum of the dims)."""
        self._params = [
            nd.array((np.sqrt(6.0 / np.sum(_shape(p))) * np.random.uniform(
                -1.0, 1.0, _shape(p))).astype(p.struct_info.dtype), self.device)
            for p in self._param_vars]

    def zero_init_params(self) -> None:
        self._params = [self._zeros(p) for p in self._param_vars]

    def zero_init_states(self) -> None:
        self._states = [self._zeros(s) for s in self._state_vars]

    def _load(self, values: Arrays, slots: list[Any], pos: dict[str, int], what: str) -> None:
        if isinstance(values, list):
            if len(values) != len(slots):
                raise ValueError(f"{len(values)} {what}s given, the model has {len(slots)}")
            slots[:] = [self._tensor(v) for v in values]
        elif isinstance(values, dict):
            for key, val in values.items():
                if key not in pos:
                    raise ValueError(f"the model has no {what} {key!r}")
                slots[pos[key]] = self._tensor(val)
        else:
            raise ValueError(f"{what}s are given as a list or a dict")

    def load_params(self, params: Arrays) -> None:
        self._load(params, self._params, self._param_pos, "parameter")

    def load_states(self, states: Arrays) -> None:
        self._load(states, self._states, self._state_pos, "state")

    def export_params(self) -> dict[str, Any]:
        return {k: self._params[i] for k, i in self._param_pos.items()}

    def export_states(self) -> dict[str, Any]:
        return {k: self._states[i] for k, i in self._state_pos.items()}

    def _check_inited(self) -> None:
        for what, values in (("parameter", self._params), ("model state", self._states)):
            missing = [i for i, v in enumerate(values) if v is None]
            if missing:
                raise RuntimeError(f"the {missing[0]}-th {what} is not initialized before "
                                   f"training or inference")

    def predict(self, *input_instances: Any) -> Any:
        self._check_inited()
        if len(input_instances) != self._input_num:
            raise ValueError(f"the backbone takes {self._input_num} inputs, got "
                             f"{len(input_instances)}")
        args = [self._tensor(i) for i in input_instances] + self._params + self._states
        res = self.vm[self.BACKBONE_FUNC](*args)
        if self._state_num:
            res = res[:-self._state_num]
            res = res[0] if len(res) == 1 else res
        return res

    def update(self, input_instances: Any, targets: Any) -> Any:
        """One step: the loss and gradients, then the optimizer; returns the loss."""
        self._check_inited()
        inputs = input_instances if isinstance(input_instances, list) else [input_instances]
        targets = targets if isinstance(targets, list) else [targets]
        if len(inputs) != self._input_num:
            raise ValueError(f"the backbone takes {self._input_num} inputs, got {len(inputs)}")
        args = [self._tensor(i) for i in inputs] + self._params + self._states + \
            [self._tensor(t) for t in targets]
        ret, grads = self.vm[self.ADJOINT_FUNC](*args)
        if self._state_num:
            self._states = list(ret[1:])
            ret = ret[0]
        new_params, self._optim_state = self.vm[self.OPTIMIZER_FUNC](
            tuple(self._params), grads, tuple(self._optim_state))
        self._params = list(new_params)
        return ret
