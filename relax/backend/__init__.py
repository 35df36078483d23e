"""`tvm.relax.backend`: BYOC pattern tables and the built-in backends (see backend/).

Importing a backend registers its patterns and its `relax.ext.<name>` codegen.
"""

from ...backend import blas, ccompiler, cupy  # noqa: F401
from ...transforms.dispatch import DispatchSampling, DispatchSortScan  # noqa: F401
from . import contrib, cuda, pattern_registry, patterns  # noqa: F401

get_pattern = pattern_registry.get_pattern
get_patterns_with_prefix = pattern_registry.get_patterns_with_prefix

__all__ = ["DispatchSampling", "DispatchSortScan", "blas", "ccompiler", "contrib", "cuda",
           "cupy", "get_pattern",
           "get_patterns_with_prefix", "pattern_registry", "patterns"]
