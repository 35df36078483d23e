"""`tvm.s_tir`: TVM 0.27's home of the block-level schedule (`tvm.s_tir.Schedule`)."""

from .tir.schedule import BlockRV, ExprRV, Instruction, LoopRV, Schedule, ScheduleError, Trace

__all__ = ["BlockRV", "ExprRV", "Instruction", "LoopRV", "Schedule", "ScheduleError", "Trace"]
