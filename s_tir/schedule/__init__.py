"""`tvm.s_tir.schedule`: the block-level schedule and its trace (tir/schedule/)."""

from ...tir.schedule import (  # noqa: F401
    BlockRV, ExprRV, Instruction, LoopRV, Schedule, ScheduleError, Trace,
)

__all__ = ["BlockRV", "ExprRV", "Instruction", "LoopRV", "Schedule", "ScheduleError", "Trace"]
