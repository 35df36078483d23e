"""Process settings for the span of a kernel build: the cyclic GC paused, the GIL handed over
often.

- Lowering a model allocates millions of small IR nodes that live until the build ends; each
  few hundred allocations Python's cyclic collector runs, and its full passes walk the whole
  growing heap. Paused for the build, that was a third of the CPU time of lowering VGG-style
  models (nothing is lost: cycles made meanwhile are collected once it resumes).
- The LLVM thread (vm.kernels.start_compiling) needs the GIL back after each llvmlite call;
  at the default 5 ms switch interval it waits behind the busy lowering thread, which made a
  cold VGG compile 0.4-0.6 s slower. 0.5 ms keeps it fed.

Both are process-wide, so they are restored when the last build using them ends (builds may
run on several threads at once).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from typing import Iterator

FAST_SWITCH_S = 0.0005
_LOCK = threading.Lock()
_users = 0
_saved: tuple[bool, float] = (True, 0.005)


@contextlib.contextmanager
def compiling() -> Iterator[None]:
    """Pauses the cyclic GC and shortens the GIL switch interval until the block ends."""
    global _users, _saved
    with _LOCK:
        if _users == 0:
            _saved = (gc.isenabled(), sys.getswitchinterval())
            gc.disable()
            sys.setswitchinterval(min(_saved[1], FAST_SWITCH_S))
        _users += 1
    try:
        yield
    finally:
        with _LOCK:
            _users -= 1
            if _users == 0:
                if _saved[0]:
                    gc.enable()
                sys.setswitchinterval(_saved[1])
