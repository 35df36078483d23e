"""`tvm.s_tir.schedule.schedule`: the module TVM code imports `Schedule` and `ScheduleError`
from by path (tir/schedule/)."""

from ...tir.schedule import BlockRV, ExprRV, LoopRV, Schedule, ScheduleError  # noqa: F401

SBlockRV = BlockRV  # TVM 0.27's name of a block handle

__all__ = ["BlockRV", "ExprRV", "LoopRV", "SBlockRV", "Schedule", "ScheduleError"]
