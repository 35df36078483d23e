"""`tvm.relax.training.utils`: `AppendLoss` (transforms/append_loss.py) and
`register_te_gradient`, the gradient of a call_tir_with_grad."""

from __future__ import annotations

from typing import Any, Callable

from ...transforms.append_loss import AppendLoss  # noqa: F401
from ...transforms.gradient import TE_GRAD_PREFIX
from ...vm.registry import register_func


def register_te_gradient(te_grad_name: str, te_grad_func: Callable[..., Any] | None = None
                         ) -> Any:
    """Register `te_grad_func(output_grad, *inputs, **te_grad_kwargs) -> [te tensor per
    input]` as the gradient named `te_grad_name` (a decorator without `te_grad_func`). The
    Gradient pass emits it for each `R.call_tir_with_grad(..., te_grad_name=te_grad_name)`."""
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        def emit(orig_var: Any, call: Any, output_grad: Any, ctx: Any) -> Any:
            return ctx.emit_te(func, output_grad, *call.args[1].fields,
                               **dict(call.attr("te_grad_kwargs") or ()),
                               primfunc_name_hint=te_grad_name)
        register_func(TE_GRAD_PREFIX + te_grad_name, emit, override=True)
        return func
    return register(te_grad_func) if te_grad_func is not None else register
