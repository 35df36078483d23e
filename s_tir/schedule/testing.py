"""`tvm.s_tir.schedule.testing`: `verify_trace_roundtrip`, as TVM's schedule tests use it."""

from __future__ import annotations

from typing import Any

from ...ir.structural import assert_structural_equal
from ...tir.schedule import Schedule, Trace


def assert_structural_equal_ignore_global_symbol(func1: Any, func2: Any, *args: Any,
                                                 **kwargs: Any) -> None:
    """Asserts two PrimFuncs are structurally equal whatever their `global_symbol`."""
    assert_structural_equal(func1.with_attr("global_symbol", "main"),
                            func2.with_attr("global_symbol", "main"), *args, **kwargs)


def _replay(trace: Trace, mod: Any, fmt: str, debug_mask: Any) -> Schedule:
    replayed = Schedule(mod, debug_mask=debug_mask)
    if fmt == "python":
        from ...script import tir as T  # the printed trace may name T.* (above tir)

        exec("\n".join(trace.as_python()), {"T": T}, {"sch": replayed})  # noqa: S102
    elif fmt == "json":
        Trace.apply_json_to_schedule(trace.as_json(), replayed)
    else:
        raise ValueError(f"unknown trace text format {fmt!r} (expected python or json)")
    return replayed


def verify_trace_roundtrip(sch: Schedule, mod: Any, *, debug_mask: Any = "all",
                           text_format: Any = ("python", "json")) -> Schedule:
    """Checks that `sch.trace` replays: applied to a fresh schedule of `mod`, and through each
    text format (the printed Python, the JSON form), it gives the same module, structurally,
    and a replay's own trace prints as the original does. Returns the last replay."""
    trace = sch.trace
    direct = Schedule(mod, debug_mask=debug_mask)
    trace.apply_to_schedule(direct, remove_postproc=False)
    assert_structural_equal(direct.mod, sch.mod)
    formats = [text_format] if isinstance(text_format, str) else list(text_format)
    replayed = direct
    for fmt in formats:
        replayed = _replay(trace, mod, fmt, debug_mask)
        assert_structural_equal(replayed.mod, sch.mod)
        if str(replayed.trace) != str(trace):
            raise AssertionError(f"the {fmt} replay records a different trace:\n"
                                 f"{replayed.trace}\n-- expected --\n{trace}")
    return replayed


__all__ = ["assert_structural_equal_ignore_global_symbol", "verify_trace_roundtrip"]
