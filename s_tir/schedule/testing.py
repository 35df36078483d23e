"""`tvm.s_tir.schedule.testing`: `verify_trace_roundtrip`, as TVM's schedule tests use it."""

from __future__ import annotations

from typing import Any

from ...ir.structural import assert_structural_equal
from ...tir.schedule import Schedule


def assert_structural_equal_ignore_global_symbol(func1: Any, func2: Any, *args: Any,
                                                 **kwargs: Any) -> None:
    """Asserts two PrimFuncs are structurally equal whatever their `global_symbol`."""
    assert_structural_equal(func1.with_attr("global_symbol", "main"),
                            func2.with_attr("global_symbol", "main"), *args, **kwargs)


def verify_trace_roundtrip(sch: Schedule, mod: Any, *, debug_mask: Any = "all",
                           text_format: Any = ("python", "json")) -> Schedule:
    """Replays `sch.trace` on a fresh schedule of `mod` and checks that the replay gives the
    same module, structurally; returns the replayed schedule. "python" runs the printed trace
    text (`trace.as_python()`); "json" replays the recorded instructions themselves."""
    formats = [text_format] if isinstance(text_format, str) else list(text_format)
    replayed = Schedule(mod)
    for fmt in formats:
        replayed = Schedule(mod)
        if fmt == "python":
            from ...script import tir as T  # the printed trace may name T.* (above tir)

            exec("\n".join(sch.trace.as_python()), {"T": T}, {"sch": replayed})  # noqa: S102
        elif fmt == "json":
            sch.trace.apply_to_schedule(replayed, remove_postproc=False)
        else:
            raise ValueError(f"unknown trace text format {fmt!r} (expected python or json)")
        assert_structural_equal(replayed.mod, sch.mod)
    return replayed


__all__ = ["assert_structural_equal_ignore_global_symbol", "verify_trace_roundtrip"]
