"""`tvm.s_tir.schedule.analysis`: what the schedule can tell about a block, here which of its
loops a tensor intrinsic covers (tir/schedule/tensorize_mapping.py)."""

from ...tir.schedule.tensorize_mapping import (  # noqa: F401
    TensorizeInfo, get_tensorize_loop_mapping,
)

__all__ = ["TensorizeInfo", "get_tensorize_loop_mapping"]
