"""Whether topi computes carry tvmlite's default CPU schedule or are TVM's plain computes.

Plain is the default: it is what `relax.transform.LegalizeOps()` and `bb.emit_te` users see, and
TVM's tests and printed modules show exactly that form (root block, `T_add`, serial loops). The
build pipeline legalizes inside `default_schedules()`, so the kernels it compiles keep the
register tiles, parallel loops and fused stages that make them fast (TVM does the same in two
steps: LegalizeOps, then a default schedule such as dlight's).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

_SCHEDULED: ContextVar[bool] = ContextVar("tvmlite_topi_scheduled", default=False)


def scheduled() -> bool:
    """True while computes should come out in their scheduled (fast) form."""
    return _SCHEDULED.get()


@contextmanager
def default_schedules(on: bool = True) -> Iterator[None]:
    """Within the block, topi computes carry the default CPU schedule (or not, with on=False)."""
    token = _SCHEDULED.set(on)
    try:
        yield
    finally:
        _SCHEDULED.reset(token)
