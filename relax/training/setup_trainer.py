"""`tvm.relax.training.SetupTrainer`: turn a model's `backbone` into a training module.

The module holds `backbone(*inputs, *params, *states)` and the integer attributes `param_num`
and `state_num`. The pass adds `backbone_loss` (AppendLoss with the loss), its gradient
`backbone_loss_adjoint` w.r.t. the parameters, and `optimizer` (one update step), and records
`input_num` and the optimizer's initial state `optim_state` as module attributes; then it
legalizes everything unless told not to. relax.training.Trainer runs the result.
"""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...ir.module import IRModule
from ...transforms.append_loss import AppendLoss
from ...transforms.gradient import Gradient
from ...transforms.graph_rewrites import DecomposeOpsForInference, DecomposeOpsForTraining
from ...transforms.legalize import LegalizeOps
from ...transforms.pass_infra import PassContext, module_pass
from ..analysis import check_well_formed
from .loss import Loss
from .optimizer import Optimizer


def _int_attr(mod: IRModule, key: str) -> int:
    value = mod.attrs.get(key)
    value = getattr(value, "value", value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"SetupTrainer: the backbone module needs an integer attribute "
                         f"{key!r}")
    return value


@module_pass(opt_level=0, name="SetupTrainer")
class SetupTrainer:
    """`SetupTrainer(loss, optimizer, loss_args)(mod)`: see the module doc. `loss_args` are
    the struct infos the loss is built for (predictions first, then targets)."""

    BACKBONE_FUNC = "backbone"
    BACKBONE_LOSS_FUNC = "backbone_loss"
    ADJOINT_FUNC = "backbone_loss_adjoint"
    OPTIMIZER_FUNC = "optimizer"
    PARAM_NUM_ATTR_KEY = "param_num"
    STATE_NUM_ATTR_KEY = "state_num"

    def __init__(self, loss: Loss, optimizer: Optimizer, loss_args: list[Any],
                 legalize: bool = True) -> None:
        self._loss, self._optimizer = loss, optimizer
        self._loss_args, self._legalize = loss_args, legalize

    def _check(self, mod: IRModule) -> tuple[int, int]:
        if not check_well_formed(mod):
            raise ValueError("SetupTrainer: the backbone module is not well formed")
        if self.BACKBONE_FUNC not in mod:
            raise ValueError(f"SetupTrainer: the module has no function {self.BACKBONE_FUNC!r}")
        func = mod[self.BACKBONE_FUNC]
        nparam = _int_attr(mod, self.PARAM_NUM_ATTR_KEY)
        nstate = _int_attr(mod, self.STATE_NUM_ATTR_KEY)
        if len(func.params) < nparam + nstate:
            raise ValueError("SetupTrainer: the backbone takes fewer arguments than "
                             "param_num + state_num")
        ret = func.body.body
        if nstate > 0 and (not isinstance(ret, rx.Tuple) or len(ret.fields) <= nstate):
            raise ValueError("SetupTrainer: with model states, the backbone returns a tuple "
                             "of its outputs followed by the states")
        return nparam, nstate

    def transform_module(self, mod: IRModule, ctx: PassContext) -> IRModule:
        nparam, nstate = self._check(mod)
        loss = self._loss(*self._loss_args)
        mod = AppendLoss(self.BACKBONE_FUNC, loss, self._loss.num_backbone_outputs,
                         self.BACKBONE_LOSS_FUNC)(mod)
        mod = DecomposeOpsForInference(self.BACKBONE_FUNC)(mod)
        mod = DecomposeOpsForTraining(self.BACKBONE_LOSS_FUNC)(mod)
        ninput = len(mod[self.BACKBONE_FUNC].params) - nparam - nstate
        params = list(mod[self.BACKBONE_LOSS_FUNC].params[ninput:ninput + nparam])
        mod = Gradient(self.BACKBONE_LOSS_FUNC, require_grads=params)(mod)
        self._optimizer.init(params)
        optimizer = self._optimizer.get_function().with_attr("global_symbol",
                                                             self.OPTIMIZER_FUNC)
        mod = mod.with_function(self.OPTIMIZER_FUNC, optimizer)
        mod = mod.with_attrs({"input_num": ninput, "optim_state": self._optimizer.state})
        return LegalizeOps()(mod) if self._legalize else mod
