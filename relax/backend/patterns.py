"""`tvm.relax.backend.patterns` (backend/patterns.py)."""

from ...backend.patterns import *  # noqa: F401,F403
