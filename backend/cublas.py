"""`cublas`: TVM's cuBLAS dispatch names (`relax.backend.cuda.cublas`), run through CuPy.

CuPy's matmul is cuBLAS, so this is the `cupy` backend under TVM's pattern names
(`cublas.matmul`, `cublas.matmul_transposed_bias_relu`, ...) and codegen name
(`relax.ext.cublas`): TVM's "library dispatch" tutorial code runs as written. Needs CuPy and an
NVIDIA GPU at codegen time, as TVM's needs a CUDA build with cuBLAS.
"""

from __future__ import annotations

from typing import Any

from ..vm.registry import register_func
from .cupy import codegen
from .pattern_registry import register_patterns
from .patterns import has_leaking_intermediate_variables, make_matmul_pattern


def _check_matmul(context: Any) -> bool:
    """As TVM's: a match whose intermediate values are used elsewhere is not offloaded."""
    return not has_leaking_intermediate_variables(context)


def _patterns() -> list[tuple[Any, ...]]:
    """TVM's names, most specific first (FuseOpsByPattern tries them in order)."""
    out = []
    for transposed in (True, False):
        stem = "cublas.matmul_transposed" if transposed else "cublas.matmul"
        out += [(f"{stem}_bias_relu", *make_matmul_pattern(True, "relax.nn.relu", transposed),
                 _check_matmul),
                (f"{stem}_bias", *make_matmul_pattern(True, None, transposed), _check_matmul),
                (stem, *make_matmul_pattern(False, None, transposed), _check_matmul)]
    return out


register_patterns(_patterns())
register_func("relax.ext.cublas", codegen, override=True)


def partition_for_cublas(mod: Any, bind_constants: bool = False) -> Any:
    """TVM's partitioning: every cuBLAS pattern fused into a composite function marked for the
    `cublas` codegen (FuseOpsByPattern with `annotate_codegen=True`)."""
    from ..transforms.fuse_by_pattern import FuseOpsByPattern
    from .pattern_registry import get_patterns_with_prefix

    return FuseOpsByPattern(get_patterns_with_prefix("cublas"), bind_constants=bind_constants,
                            annotate_codegen=True)(mod)
