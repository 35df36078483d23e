"""`tvm.s_tir.schedule.testing`: `verify_trace_roundtrip`, as TVM's schedule tests use it."""

from __future__ import annotations

from typing import Any

from ...ir.structural import assert_structural_equal
from ...tir.schedule import Schedule


def verify_trace_roundtrip(sch: Schedule, mod: Any, *, debug_mask: Any = "all",
                           text_format: Any = ("python", "json")) -> Schedule:
    """Replays `sch.trace` on a fresh schedule of `mod` and checks that the replay gives the
    same module, structurally; returns the replayed schedule. (tvmlite's traces print as
    Python; `text_format` and `debug_mask` are accepted for TVM's callers.)"""
    replayed = Schedule(mod)
    sch.trace.apply_to_schedule(replayed, remove_postproc=False)
    assert_structural_equal(replayed.mod, sch.mod)
    return replayed


__all__ = ["verify_trace_roundtrip"]
