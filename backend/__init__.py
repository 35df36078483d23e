"""Bring-your-own-codegen backends written in Python (`relax.backend` as TVM users reach it).

A backend is two registrations: its patterns (`pattern_registry.register_patterns`) and its
codegen (`tvm.register_func("relax.ext.<name>")`). Importing a backend module registers both.
"""

from . import pattern_registry, patterns

__all__ = ["pattern_registry", "patterns"]
