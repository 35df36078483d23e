"""libm functions under names no kernel can take: the code generator calls `erf` as
`tvmlite_libm_erf`, resolved here to the C library's `erf`. A kernel may itself be named `erf`
(TVM names the legalized kernel of `R.erf` so), and a call by the plain name would then resolve
to the kernel, within its module or across the units of a library.

`ensure_loaded()` registers the aliases with LLVM (once per process) before a library that
mentions them is linked."""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

PREFIX = "tvmlite_libm_"
_LOCK = threading.Lock()
_loaded = False


def alias(name: str) -> str:
    return PREFIX + name


def ensure_loaded() -> None:
    global _loaded
    with _LOCK:
        if _loaded:
            return
        import llvmlite.binding as llvm

        from .file_checks import LIBM_NAMES

        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        for name in LIBM_NAMES:
            fn = getattr(libm, name, None)
            if fn is not None:
                llvm.add_symbol(alias(name), ctypes.cast(fn, ctypes.c_void_p).value)
        _loaded = True
