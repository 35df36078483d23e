"""Block-moving primitives: compute_at, reverse_compute_at (compute_at.py), compute_inline,
reverse_compute_inline (inline.py). Each returns `(new PrimFunc, None)` or raises
ScheduleError, leaving the function as it was."""

from __future__ import annotations

from .compute_at import compute_at, reverse_compute_at
from .inline import compute_inline, reverse_compute_inline

__all__ = ["compute_at", "compute_inline", "reverse_compute_at", "reverse_compute_inline"]
