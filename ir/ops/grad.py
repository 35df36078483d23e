"""The gradient operators (`R.grad.*`, TVM's `relax.op.grad`): markers the Gradient pass reads
(no_grad, start_checkpoint, end_checkpoint) and the backward operators of nll_loss, the 2-d
pools and take. Each returns a value shaped like the input it is the gradient of."""

from __future__ import annotations

from typing import Any

from .. import expr as rx
from .. import struct_info as si
from ..op import register_op
from .base import OPAQUE, REDUCE, call, op_error, register, tensor_arg
from .reduce_nn import pair


def _infer_like_input(c: rx.Call) -> si.StructInfo:
    """The gradient w.r.t. an input has that input's struct info."""
    return c.args[0].struct_info or si.ObjectStructInfo()


def _infer_checkpoint(c: rx.Call) -> si.StructInfo:
    # NOTE: a call argument is fine, normalization binds it to a variable; a tuple or a
    # constant never becomes one, and the Gradient pass needs a variable to mark
    if not isinstance(c.args[0], (rx.Var, rx.Call)):
        raise TypeError(f"{c.op.name}: the input must be a variable, got "  # type: ignore
                        f"{type(c.args[0]).__name__}")
    return c.args[0].struct_info or si.ObjectStructInfo()


def _infer_second(c: rx.Call) -> si.StructInfo:
    """Backward operators take (output_grad, input, ...) and give the input's struct info."""
    name = c.op.name  # type: ignore[attr-defined]
    tensor_arg(name, c, 0, "output_grad")
    return tensor_arg(name, c, 1, "input")


def no_grad(input: Any) -> rx.Call:  # noqa: A002 (TVM's parameter name)
    """A partial that is no gradient: the Gradient pass leaves the input's adjoint alone."""
    return call("relax.grad.no_grad", (input,))


def start_checkpoint(input: Any) -> rx.Call:  # noqa: A002
    """Mark `input` as the start of a checkpointed stage (recomputed in the backward pass)."""
    return call("relax.grad.start_checkpoint", (input,))


def end_checkpoint(input: Any) -> rx.Call:  # noqa: A002
    """Mark `input` as the end of a checkpointed stage."""
    return call("relax.grad.end_checkpoint", (input,))


def nll_loss_backward(output_grad: Any, predictions: Any, targets: Any, weights: Any = None,
                      reduction: str = "mean", ignore_index: int = -100) -> rx.Call:
    """The gradient of `R.nn.nll_loss` w.r.t. its predictions."""
    if reduction not in ("mean", "sum", "none"):
        raise op_error("relax.grad.nll_loss_backward",
                       f"reduction must be mean, sum or none, got {reduction!r}")
    args = (output_grad, predictions, targets) + (() if weights is None else (weights,))
    return call("relax.grad.nll_loss_backward", args, reduction=str(reduction),
                ignore_index=int(ignore_index))


def _pool_backward_maker(name: str) -> Any:
    def make(output_grad: Any, data: Any, pool_size: Any = (1, 1), strides: Any = (1, 1),
             padding: Any = (0, 0, 0, 0), dilation: Any = (1, 1), ceil_mode: bool = False,
             count_include_pad: bool = False, layout: str = "NCHW",
             out_layout: Any = None) -> rx.Call:
        return call(name, (output_grad, data), pool_size=pair(pool_size),
                    strides=pair(strides), padding=pair(padding, 4),
                    dilation=pair(dilation), ceil_mode=bool(ceil_mode),
                    count_include_pad=bool(count_include_pad), layout=layout)
    make.__name__ = name.split(".")[-1]
    make.__doc__ = f"The gradient of `R.nn.{name.split('.')[-1][:-9]}` w.r.t. its data."
    return make


def take_backward(output_grad: Any, x: Any, indices: Any, axis: int | None = None) -> rx.Call:
    """The gradient of `R.take` w.r.t. x (the output gradient summed into the taken places)."""
    return call("relax.grad.take_backward", (output_grad, x, indices),
                axis=None if axis is None else int(axis))


max_pool2d_backward = _pool_backward_maker("relax.grad.max_pool2d_backward")
avg_pool2d_backward = _pool_backward_maker("relax.grad.avg_pool2d_backward")

# call_tir bound to a te gradient (script.relax.call_tir_with_grad builds it, as call_tir)
register_op("relax.call_tir_with_grad")
register("relax.grad.no_grad", _infer_like_input, no_grad, OPAQUE)
register("relax.grad.start_checkpoint", _infer_checkpoint, start_checkpoint, OPAQUE)
register("relax.grad.end_checkpoint", _infer_checkpoint, end_checkpoint, OPAQUE)
register("relax.grad.nll_loss_backward", _infer_second, nll_loss_backward, REDUCE)
register("relax.grad.max_pool2d_backward", _infer_second, max_pool2d_backward, REDUCE)
register("relax.grad.avg_pool2d_backward", _infer_second, avg_pool2d_backward, REDUCE)
register("relax.grad.take_backward", _infer_second, take_backward, REDUCE)
