"""`tvm.s_tir.schedule`: the block-level schedule and its trace (tir/schedule/)."""

from ...tir.schedule import (  # noqa: F401
    BlockRV, ExprRV, Instruction, LoopRV, Schedule, ScheduleError, Trace,
)

from ...tir.schedule.extra import ScheduleState, StmtSRef  # noqa: F401
from ...tir.schedule.instruction import InstructionKind  # noqa: F401
from . import schedule, state  # noqa: F401  (the modules, as TVM's path has them)

SBlockRV = BlockRV  # TVM 0.27's name of a block handle

__all__ = ["BlockRV", "ExprRV", "Instruction", "LoopRV", "Schedule", "ScheduleError", "Trace",
           "SBlockRV", "ScheduleState", "StmtSRef", "InstructionKind"]
