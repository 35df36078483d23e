"""`tvm.s_tir`: TVM 0.27's home of the block-level schedule (`tvm.s_tir.Schedule`,
`tvm.s_tir.schedule`) and of dlight (`from tvm.s_tir import dlight as dl`)."""

from ..transforms import dlight  # noqa: F401
from .. import meta_schedule  # noqa: F401 (TVM 0.27: `from tvm.s_tir import meta_schedule`)
from . import schedule  # noqa: F401
from .schedule import BlockRV, ExprRV, Instruction, LoopRV, Schedule, ScheduleError, Trace
from ..tir.index_map import IndexMap  # noqa: F401
from .schedule import SBlockRV, ScheduleState, StmtSRef  # noqa: F401
from ..tir.stmt import Block as SBlock, BlockRealize as SBlockRealize  # noqa: F401
from ..tir.stmt import MatchBufferRegion  # noqa: F401
from ..tir.schedule.tensorize import TensorIntrin  # noqa: F401
from ..tir.data_layout import SBijectiveLayout, SLayout, sbijective_layout, slayout  # noqa: F401
from ..tir.renew_defs import renew_defs  # noqa: F401
from .sblock_dependence_info import SBlockDependenceInfo  # noqa: F401
from .sblock_scope import SBlockScope  # noqa: F401

__all__ = ["dlight", "meta_schedule", "schedule", "BlockRV", "ExprRV", "Instruction", "LoopRV",
           "Schedule", "ScheduleError", "Trace", "IndexMap", "TensorIntrin",
           "SBlockRV", "StmtSRef", "ScheduleState", "SBlock", "SBlockRealize",
           "MatchBufferRegion", "SLayout", "SBijectiveLayout", "slayout", "sbijective_layout",
           "renew_defs", "SBlockDependenceInfo", "SBlockScope"]
