"""Kernels as object code: one LLVM module per kernel compiled to an object file (what the
kernel cache stores), and an MCJIT engine that links such object files.

A `KernelUnit` is one kernel: its cache key, and either its own LLVM module's text (a cache
miss, compiled in the background (vm/llvm_helpers.py), `pending` until `load()` collects it) or its
object code (a hit). Compiling each kernel alone runs the same -O3 pipeline for the same CPU as
the one-module path of `vm.kernels`, and a hit loads the very object a miss compiled, so a
kernel's machine code does not depend on whether it came from the cache.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import llvmlite.binding as llvm


@dataclass
class KernelUnit:
    name: str
    key: str | None  # the cache key; None: not cacheable
    llvm_ir: str | None = None  # this kernel's own module (to compile)
    obj: bytes | None = None  # its object code (compiled or from the cache)
    from_cache: bool = False  # a cache hit
    pending: Future | None = None  # its object code, being compiled on the LLVM thread

    def mentions(self, symbol: str) -> bool:
        """Whether this kernel refers to `symbol` (the parallel pool, the bounds callback)."""
        return symbol.encode() in (self.obj or b"") or symbol in (self.llvm_ir or "")


_OBJECT_TM: Any = None
_COMPILER: ThreadPoolExecutor | None = None


def background_compiler() -> ThreadPoolExecutor:
    """The threads that compile kernel modules while Python lowers the next ones: one runs
    this process's LLVM, the others feed helper processes (vm/llvm_helpers.py)."""
    global _COMPILER
    if _COMPILER is None:
        from .llvm_helpers import helper_limit  # one more thread per helper process

        _COMPILER = ThreadPoolExecutor(max_workers=1 + helper_limit(),
                                       thread_name_prefix="tvmlite-llvm")
    return _COMPILER


def object_target_machine(new_target_machine: Callable[[], Any]) -> Any:
    """One target machine for emitting objects (never handed to an engine, so it is shared)."""
    global _OBJECT_TM
    if _OBJECT_TM is None:
        _OBJECT_TM = new_target_machine()
    return _OBJECT_TM


def compile_object(module: Any, new_target_machine: Callable[[], Any]) -> bytes:
    """Object code of an optimized module, for the host CPU."""
    return bytes(object_target_machine(new_target_machine).emit_object(module))


def link_objects(objects: list[bytes], engine_tm: Any) -> tuple[Any, list[Any]]:
    """An MCJIT engine holding `objects`; returns it and what must stay alive with it."""
    keep = [llvm.parse_assembly("")]
    engine = llvm.create_mcjit_compiler(keep[0], engine_tm)
    for data in objects:
        obj = llvm.ObjectFileRef.from_data(data)
        engine.add_object_file(obj)
        keep.append(obj)
    engine.finalize_object()
    return engine, keep
