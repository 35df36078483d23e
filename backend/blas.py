"""The `blas` backend (CPU): dense/matmul and conv2d (+ bias + activation) on numpy's BLAS.

Importing this module registers the patterns (`blas.*`) and the codegen `relax.ext.blas`.
It is also the example to copy when writing a backend: patterns with a check, and a codegen
that returns one destination-passing Python callable per offloaded function.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ir.dpl import bindings_of
from ..ir.expr import Call, Constant, Function, Op
from ..ir.module import IRModule
from ..vm.registry import register_func
from .numpy_eval import Impl, compile_function, conv2d_im2col
from .pattern_registry import register_patterns
from .patterns import make_fused_bias_activation_pattern, make_matmul_pattern


def _conv2d_supported(ctx: Any) -> bool:
    """Only what the im2col kernel handles: NCHW/OIHW, groups 1, dilation 1, float32."""
    conv = _find_call(ctx.annotated_expr.values(), "relax.nn.conv2d")
    if conv is None:
        return False
    a = dict(conv.attrs)
    x = conv.args[0].struct_info
    return (a.get("groups", 1) == 1 and tuple(a.get("dilation", (1, 1))) == (1, 1)
            and a.get("data_layout", "NCHW") == "NCHW" and getattr(x, "dtype", "") == "float32")


def _find_call(exprs: Any, op: str) -> Call | None:
    for e in exprs:
        if isinstance(e, Call) and e.op == Op(op):
            return e
    return None


def _patterns() -> list[tuple[Any, ...]]:
    conv = "relax.nn.conv2d"
    return [
        ("blas.conv2d_bias_relu",
         *make_fused_bias_activation_pattern(conv, True, "relax.nn.relu"), _conv2d_supported),
        ("blas.conv2d_bias", *make_fused_bias_activation_pattern(conv, True), _conv2d_supported),
        ("blas.conv2d", *make_fused_bias_activation_pattern(conv), _conv2d_supported),
        ("blas.dense_bias_relu", *make_matmul_pattern(True, "relax.nn.relu", True)),
        ("blas.dense_bias", *make_matmul_pattern(True, None, True)),
        ("blas.dense", *make_matmul_pattern(False, None, True)),
        ("blas.matmul_bias_relu", *make_matmul_pattern(True, "relax.nn.relu")),
        ("blas.matmul_bias", *make_matmul_pattern(True)),
        ("blas.matmul", *make_matmul_pattern()),
    ]


def _fused_conv(func: Function) -> Impl | None:
    """conv2d + bias (+ relu) with the weight matrix packed once, at codegen time."""
    calls = list(bindings_of(func).values())
    conv = _find_call(calls, "relax.nn.conv2d")
    if conv is None or not isinstance(conv.args[1], Constant):
        return None  # weights are inputs: the generic path (still im2col + BLAS) runs it
    attrs = dict(conv.attrs)
    w = conv.args[1].data.numpy()
    add = _find_call(calls, "relax.add")
    bias = _operand(func, add.args[1]) if add is not None else None
    relu = _find_call(calls, "relax.nn.relu") is not None
    data = _operand(func, conv.args[0])

    def run(*inputs: np.ndarray) -> np.ndarray:
        y = conv2d_im2col(data(inputs), w, **attrs)
        if bias is not None:
            y += bias(inputs)
        return np.maximum(y, 0, out=y) if relu else y

    return run


def _operand(func: Function, e: Any) -> Callable[[tuple[np.ndarray, ...]], np.ndarray]:
    """How to get an operand at run time: a constant (converted once) or the i-th input."""
    if isinstance(e, Constant):
        value = e.data.numpy()
        return lambda inputs: value
    index = list(func.params).index(e)
    return lambda inputs: inputs[index]


COMPOSITE_IMPLS: dict[str, Callable[[Function], Impl | None]] = {
    "blas.conv2d_bias_relu": _fused_conv,
    "blas.conv2d_bias": _fused_conv,
    "blas.conv2d": _fused_conv,
}


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[Callable[..., None]]:
    """`relax.ext.blas`: one DPS callable per function (a composite, or a merged group)."""
    out = []
    for func in functions:
        name = str(func.attr_dict.get("Composite", ""))
        fast = COMPOSITE_IMPLS[name](func) if name in COMPOSITE_IMPLS else None
        if fast is not None:
            out.append(_as_dps(fast, len(func.params)))
        else:
            out.append(compile_function(func, mod, COMPOSITE_IMPLS))
    return out


def _as_dps(impl: Impl, n_inputs: int) -> Callable[..., None]:
    def dps(*args: Any) -> None:
        inputs = [np.from_dlpack(a) for a in args[:n_inputs]]
        np.copyto(np.from_dlpack(args[n_inputs]), impl(*inputs), casting="same_kind")

    return dps


register_patterns(_patterns())
register_func("relax.ext.blas", codegen, override=True)
