"""`tvm.s_tir.sblock_dependence_info`: SBlockDependenceInfo."""

from ..tir.schedule.dependence import SBlockDependenceInfo  # noqa: F401

__all__ = ["SBlockDependenceInfo"]
