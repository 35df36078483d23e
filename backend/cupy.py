"""The `cupy` backend (GPU): dense/matmul (cuBLAS) and conv2d (im2col + cuBLAS) through CuPy.

Importing this module registers the patterns (`cupy.*`) and the codegen `relax.ext.cupy`.
CuPy is imported only when the codegen runs; without CuPy or a GPU it says so plainly. Each
offloaded function becomes a step program (numpy_eval.to_program) run by cupy_runtime.py, so an
exported executable carries it like the `blas` backend's.
"""

from __future__ import annotations

from typing import Any

from ..ir.expr import Function
from ..ir.module import IRModule
from ..vm.external import ExternalFunction
from ..vm.registry import register_func
from . import cupy_runtime
from .blas import _conv2d_supported
from .cupy_runtime import CuPyUnavailableError  # noqa: F401  (its name here before)
from .numpy_eval import to_program
from .pattern_registry import register_patterns
from .patterns import make_fused_bias_activation_pattern, make_matmul_pattern


def _patterns() -> list[tuple[Any, ...]]:
    conv = "relax.nn.conv2d"
    return [
        ("cupy.conv2d_bias_relu",
         *make_fused_bias_activation_pattern(conv, True, "relax.nn.relu"), _conv2d_supported),
        ("cupy.conv2d_bias", *make_fused_bias_activation_pattern(conv, True), _conv2d_supported),
        ("cupy.dense_bias_relu", *make_matmul_pattern(True, "relax.nn.relu", True)),
        ("cupy.dense_bias", *make_matmul_pattern(True, None, True)),
        ("cupy.dense", *make_matmul_pattern(False, None, True)),
    ]


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[ExternalFunction]:
    """`relax.ext.cupy`: one exportable DPS callable per composite function, run on the GPU."""
    cupy_runtime.cupy_module()  # no CuPy or no GPU: say so now, not at the first call
    return [cupy_runtime.load(*to_program(func, mod)) for func in functions]


register_patterns(_patterns())
register_func("relax.ext.cupy", codegen, override=True)
