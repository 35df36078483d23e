"""The run-time half of bounds checking: kernels built with checks (tir/bounds_instrument.py)
call `void tvmlite_bounds_fail(ptr message, i64 index)` and return early; the call is recorded
here, and the Python side of the kernel call raises `BoundsCheckError` once the kernel returns.

`ensure_loaded()` registers the symbol with LLVM before an instrumented kernel module is
compiled; `checked(fn)` wraps a kernel (or host) callable so that it raises. Failures
are kept per process: with several threads calling instrumented kernels at once, a failure is
raised by whichever of them checks first (a debug switch, not a production path).
"""

from __future__ import annotations

import ctypes
import functools
import threading
from typing import Any, Callable

SYMBOL = "tvmlite_bounds_fail"
_FAILURES: list[str] = []
_LOCK = threading.Lock()
_CALLBACK: Any = None


class BoundsCheckError(IndexError):
    """A run-time bounds check failed: the message names the kernel, buffer and index."""


def _record(message: bytes, index: int) -> None:
    with _LOCK:
        if len(_FAILURES) < 100:
            _FAILURES.append(message.decode(errors="replace").replace("%lld", str(index)))


def ensure_loaded() -> None:
    """Make `tvmlite_bounds_fail` resolvable by every later kernel engine (once)."""
    global _CALLBACK
    with _LOCK:
        if _CALLBACK is None:
            import llvmlite.binding as llvm

            _CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int64)(_record)
            llvm.add_symbol(SYMBOL, ctypes.cast(_CALLBACK, ctypes.c_void_p).value)


def raise_failures() -> None:
    if not _FAILURES:
        return
    with _LOCK:
        found = list(_FAILURES)
        _FAILURES.clear()
    more = f" (and {len(found) - 1} more failed checks)" if len(found) > 1 else ""
    raise BoundsCheckError(found[0] + more)


def checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (whose kernels are instrumented), raising after the call when a check failed."""

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        out = fn(*args)
        raise_failures()
        return out

    for key in ("fast_path", "binder", "_keepalive", "executable", "library"):
        if hasattr(fn, key):
            setattr(call, key, getattr(fn, key))
    return call
