"""`tvm.s_tir`: TVM 0.27's home of the block-level schedule (`tvm.s_tir.Schedule`) and of
dlight (`from tvm.s_tir import dlight as dl`)."""

from .transforms import dlight
from .tir.schedule import BlockRV, ExprRV, Instruction, LoopRV, Schedule, ScheduleError, Trace

__all__ = ["dlight", "BlockRV", "ExprRV", "Instruction", "LoopRV", "Schedule", "ScheduleError",
           "Trace"]
