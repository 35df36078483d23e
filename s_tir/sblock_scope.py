"""`tvm.s_tir.sblock_scope`: SBlockScope, Dependency and DepKind."""

from ..tir.schedule.dependence import DepKind, Dependency, SBlockScope  # noqa: F401

__all__ = ["DepKind", "Dependency", "SBlockScope"]
