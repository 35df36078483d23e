"""`tvm.relax.backend.pattern_registry` (backend/pattern_registry.py)."""

from ...backend.pattern_registry import *  # noqa: F401,F403
