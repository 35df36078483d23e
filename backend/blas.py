"""The `blas` backend (CPU): dense/matmul and conv2d (+ bias + activation) on numpy's BLAS.

Importing this module registers the patterns (`blas.*`) and the codegen `relax.ext.blas`.
It is also the example to copy when writing a backend: patterns with a check, and a codegen
that returns one destination-passing callable per offloaded function -- here an
`ExternalFunction` (a step program run by blas_runtime.py), so an exported executable carries it.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Call, Function, Op
from ..ir.module import IRModule
from ..vm.external import ExternalFunction
from ..vm.registry import register_func
from . import blas_runtime
from .numpy_eval import to_program
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


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[ExternalFunction]:
    """`relax.ext.blas`: one exportable DPS callable per function (a composite, or a merged
    group), built from its step program by the same loader that rebuilds it from a file."""
    return [blas_runtime.load(*to_program(func, mod)) for func in functions]


register_patterns(_patterns())
register_func("relax.ext.blas", codegen, override=True)
