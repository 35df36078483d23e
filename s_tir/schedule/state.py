"""`tvm.s_tir.schedule.state`: the schedule state and the debug mask TVM's tests pass to it.

tvmlite's schedule rebuilds an immutable function per primitive, so there is no sref tree or
cached flag to verify: every mask is accepted and means the same.
"""

from __future__ import annotations

import enum

from ...tir.schedule.extra import ScheduleState  # noqa: F401


class ScheduleDebugMask(enum.IntFlag):
    """TVM's checks after each primitive (`debug_mask=`)."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


__all__ = ["ScheduleDebugMask", "ScheduleState"]
