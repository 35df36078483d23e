"""`tvm.relax.training.loss`: loss functions as relax functions of (predictions, targets).

`L1Loss()(pred, target)` returns a function `l1_loss(predictions, targets)` (parameters given
as variables or as struct infos) computing the loss with the chosen reduction; AppendLoss
(relax.training.utils) joins it to a model's forward function.
"""

from __future__ import annotations

from typing import Any

from ...ir import expr as rx
from ...ir import struct_info as si
from ...transforms.block_builder import BlockBuilder
from .. import op

REDUCTIONS = ("mean", "sum", "none")


def _param(value: Any, name: str) -> rx.Var:
    """A fresh parameter named `name` (or like the given variable) of the given struct info."""
    if isinstance(value, si.StructInfo):
        return rx.Var(name, value)
    if not isinstance(value, rx.Var):
        raise TypeError(f"a loss parameter is a Var or a struct info, got "
                        f"{type(value).__name__}")
    return rx.Var(value.name_hint, value.struct_info)


class Loss:
    """A loss: `__call__` builds its relax function; `num_backbone_outputs` is how many of
    the model's outputs it takes as predictions."""

    def __init__(self, loss_name: str, num_backbone_outputs: int,
                 reduction: str = "mean") -> None:
        if reduction not in REDUCTIONS:
            raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
        self._loss_name = loss_name
        self._num_backbone_outputs = num_backbone_outputs
        self._reduction = reduction

    @property
    def num_backbone_outputs(self) -> int:
        return self._num_backbone_outputs

    def _reduce(self, expr: rx.Expr) -> rx.Expr:
        if self._reduction == "sum":
            return op.sum(expr)
        return op.mean(expr) if self._reduction == "mean" else expr

    def _build(self, params: list[rx.Var], body: Any) -> rx.Function:
        bb = BlockBuilder()
        with bb.function(self._loss_name, params):
            with bb.dataflow():
                loss = bb.emit_output(body(bb))
            bb.emit_func_output(loss)
        return bb.get()[self._loss_name]


class L1Loss(Loss):
    """mean / sum of |predictions - targets|."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__("l1_loss", 1, reduction)

    def __call__(self, predictions: Any, targets: Any) -> rx.Function:
        p, t = _param(predictions, "predictions"), _param(targets, "targets")
        return self._build([p, t], lambda bb: self._reduce(op.abs(op.subtract(p, t))))


class MSELoss(Loss):
    """mean / sum of (predictions - targets)^2."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__("mse_loss", 1, reduction)

    def __call__(self, predictions: Any, targets: Any) -> rx.Function:
        p, t = _param(predictions, "predictions"), _param(targets, "targets")

        def body(bb: BlockBuilder) -> rx.Expr:
            diff = bb.emit(op.subtract(p, t))
            return self._reduce(op.multiply(diff, diff))
        return self._build([p, t], body)


class CrossEntropyLoss(Loss):
    """nll_loss of log_softmax(predictions) against class indices."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        super().__init__("cross_entropy_loss", 1, reduction)
        self.ignore_index = ignore_index

    def __call__(self, predictions: Any, targets: Any, weights: Any = None) -> rx.Function:
        p, t = _param(predictions, "predictions"), _param(targets, "targets")
        w = None if weights is None else _param(weights, "weights")

        def body(bb: BlockBuilder) -> rx.Expr:
            logits = bb.emit(op.nn.log_softmax(p))
            return op.nn.nll_loss(logits, t, w, self._reduction, self.ignore_index)
        return self._build([p, t] + ([w] if w is not None else []), body)


class CategoricalCrossEntropyLoss(Loss):
    """Cross entropy against one-hot (or soft) integer targets; with `ignore_index` >= 0
    the targets become class indices (their argmax) and nll_loss ignores that class."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        super().__init__("categorical_cross_entropy_loss", 1, reduction)
        self.ignore_index = ignore_index

    def __call__(self, predictions: Any, targets: Any, weights: Any = None) -> rx.Function:
        dtype = getattr(targets, "dtype", None) or getattr(targets.struct_info, "dtype", "")
        if "int" not in str(dtype):
            raise TypeError(f"the targets of a categorical cross entropy are integers, got "
                            f"{dtype}")
        p, t = _param(predictions, "predictions"), _param(targets, "targets")
        w = None if weights is None else _param(weights, "weights")

        def body(bb: BlockBuilder) -> rx.Expr:
            logits = bb.emit(op.nn.log_softmax(p))
            if self.ignore_index >= 0:
                labels = bb.emit(op.reshape(op.argmax(t, axis=1),
                                            (t.struct_info.shape[0],)))
                return op.nn.nll_loss(logits, labels, w, self._reduction, self.ignore_index)
            lv = bb.emit(-logits * op.astype(t, "float32"))
            if w is not None:
                lv = bb.emit(lv * w)
            return self._reduce(lv)
        return self._build([p, t] + ([w] if w is not None else []), body)
