"""Helper processes that compile big kernel modules beside the in-process LLVM thread.

llvmlite runs every LLVM call under one process-wide lock, so two threads never compile at
once, and a model's big kernels (a VGG convolution is ~0.15 s of LLVM) queue behind each other
while other cores idle. A helper is `python -I vm/llvm_pipeline.py`: the same functions, the
same host CPU, so the object code is the same bytes the LLVM thread would make. A helper is
started only when a big kernel finds the LLVM thread busy, stays for later builds, and ends
with us (its input closes). Anything going wrong with one (it cannot start, dies, answers
garbage or finds the IR invalid) makes the caller compile in-process instead, which also
raises the located error for invalid IR.

`TVMLITE_LLVM_HELPERS=N` caps how many run (default: one per core beyond the first, at most 3;
0: none).
"""

from __future__ import annotations

import atexit
import os
import struct
import subprocess
import sys
import threading
from typing import Any

HELPER_MIN_IR = 32768  # smaller modules wait for the LLVM thread: a helper's start costs more
_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llvm_pipeline.py")
_LOCK = threading.Lock()
_idle: list["_Helper"] = []
_started = 0
_broken = False  # a helper failed to start or answer: compile in-process from now on


def helper_limit() -> int:
    text = os.environ.get("TVMLITE_LLVM_HELPERS", "").strip()
    if text.isdigit():
        return int(text)
    return max(0, min(3, (os.cpu_count() or 1) - 1))


class _Helper:
    def __init__(self) -> None:
        self.pid = os.getpid()  # NOTE: a forked child must not talk over its parent's pipes
        self.proc = subprocess.Popen([sys.executable, "-I", _SCRIPT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def compile(self, name: str, llvm_ir: str) -> bytes | None:
        """Object code of the module, or None when the helper could not make it."""
        n, text = name.encode(), llvm_ir.encode()
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(struct.pack("<I", len(n)) + n + struct.pack("<Q", len(text)) + text)
        stdin.flush()
        head = stdout.read(9)
        if len(head) != 9:
            raise OSError("the LLVM helper process ended")
        status, size = struct.unpack("<BQ", head)
        payload = stdout.read(size)
        if len(payload) != size:
            raise OSError("the LLVM helper process ended")
        return payload if status == 0 else None

    def close(self) -> None:
        if self.pid != os.getpid():
            return
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _take() -> _Helper | None:
    global _started, _broken
    with _LOCK:
        while _idle:
            helper = _idle.pop()
            if helper.pid == os.getpid():
                return helper
            _started -= 1  # inherited through a fork: its pipes belong to the parent
        if _broken or _started >= helper_limit():
            return None
        _started += 1
    try:
        return _Helper()
    except OSError:
        with _LOCK:
            _started -= 1
            _broken = True
        return None


def compile_in_helper(name: str, llvm_ir: str) -> bytes | None:
    """The object code of kernel `name`'s module from a helper process; None when none is
    free (or allowed) or it failed: then the caller compiles it in-process."""
    global _started, _broken
    helper = _take()
    if helper is None:
        return None
    try:
        obj = helper.compile(name, llvm_ir)
    except (OSError, ValueError, struct.error):
        helper.close()
        with _LOCK:
            _started -= 1
            _broken = True
        return None
    with _LOCK:
        _idle.append(helper)
    return obj


@atexit.register
def _close_all() -> None:
    with _LOCK:
        helpers, _idle[:] = list(_idle), []
    for helper in helpers:
        helper.close()


def running() -> list[Any]:
    """The idle helpers' processes (for tests)."""
    with _LOCK:
        return [h.proc for h in _idle if h.pid == os.getpid()]
