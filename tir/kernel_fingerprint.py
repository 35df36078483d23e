"""Kernel cache keys: a digest of a prim_func's full structure, stable across processes.

`ir.structural.structural_hash` ignores names (as TVM's does), but names reach the kernel (its
symbol, the messages of its checks), so the key walks every compared field, names included.
Variables and buffers (compared by identity) are numbered where first met. Python's `hash()` is
salted per process, so everything goes through sha256 of a canonical token stream.
`environment_digest()` covers what else decides the machine code: the CPU, LLVM, tvmlite itself.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import os
from typing import Any

import numpy as np

from ..ir.expr import Var as RelaxVar
from .expr import Var
from .stmt import Buffer

# compared by identity: numbered where first met (relax variables too: a whole module is
# digested by the build cache, transforms/executable_cache.py)
_IDENTITY = (Var, Buffer, RelaxVar)


class NotFingerprintable(ValueError):
    """The function holds a value with no stable text (so it is compiled, never cached)."""


@functools.cache
def _compared_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.compare)


class _Fingerprint:
    """Tokens of a canonical walk; hashed once at the end (per-token hashing and the generic
    type tests cost most of a warm build's key time)."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.numbers: dict[int, int] = {}
        self.keep: list[Any] = []  # NOTE: keeps numbered objects alive, so ids stay unique

    def visit(self, x: Any) -> None:
        cls = type(x)
        handler = _HANDLERS.get(cls)
        if handler is None:
            handler = _HANDLERS[cls] = _handler_for(cls)
        handler(self, x)

    def scalar(self, x: Any) -> None:
        self.tokens.append(f"{type(x).__name__}:{x!r}")

    def enum_value(self, x: enum.Enum) -> None:
        self.tokens.append(f"{type(x).__name__}.{x.name}")

    def sequence(self, x: Any) -> None:
        self.tokens.append(f"[{len(x)}")
        for v in x:
            self.visit(v)

    def array(self, x: Any) -> None:
        arr = np.asarray(x)
        # NOTE: the bytes in place (a model's weights: no copy of tens of MB); object arrays
        # (pointers) give unstable digests, which only miss
        flat = np.ascontiguousarray(arr).reshape(-1)
        data = hashlib.sha256(flat.view(np.uint8) if not arr.dtype.hasobject
                              else flat.tobytes()).hexdigest()
        self.tokens.append(f"nd:{arr.dtype}{arr.shape}:{data}")

    def node(self, x: Any) -> None:
        self.tokens.append(type(x).__name__)
        for name in _compared_fields(type(x)):
            self.visit(getattr(x, name))

    def identity_node(self, x: Any) -> None:
        number = self.numbers.get(id(x))
        if number is not None:
            self.tokens.append(f"#{number}")
            return
        self.numbers[id(x)] = len(self.numbers)
        self.keep.append(x)
        self.node(x)

    def mapping(self, m: dict) -> None:
        self.tokens.append(f"{{{len(m)}")
        for key in sorted(m, key=repr):
            self.tokens.append(repr(key))
            self.visit(m[key])

    def ndarray_constant(self, x: Any) -> None:
        arr = getattr(x, "_arr", None)  # a CPU NDArray's own memory (numpy() copies)
        self.array(arr if isinstance(arr, np.ndarray) else x.numpy())

    def hexdigest(self) -> str:
        return hashlib.sha256("\x00".join(self.tokens).encode()).hexdigest()


def _handler_for(cls: type) -> Any:
    """How a value of class `cls` is walked (decided once per class)."""
    if cls is type(None) or issubclass(cls, (bool, int, float, str)):
        return _Fingerprint.scalar
    if issubclass(cls, enum.Enum):
        return _Fingerprint.enum_value
    if issubclass(cls, (tuple, list)):
        return _Fingerprint.sequence
    if issubclass(cls, dict):
        return _Fingerprint.mapping
    if issubclass(cls, (np.ndarray, np.generic)):
        return _Fingerprint.array
    if dataclasses.is_dataclass(cls):
        return _Fingerprint.identity_node if issubclass(cls, _IDENTITY) else _Fingerprint.node
    if hasattr(cls, "numpy"):  # an NDArray constant
        return _Fingerprint.ndarray_constant

    def refuse(fp: _Fingerprint, x: Any) -> None:
        raise NotFingerprintable(f"no stable text for a {cls.__name__} value")
    return refuse


_HANDLERS: dict[type, Any] = {}


def fingerprint(*parts: Any) -> str:
    """The sha256 hex digest of `parts` (IR nodes and plain values); raises
    NotFingerprintable when some value has no stable text."""
    fp = _Fingerprint()
    for part in parts:
        fp.visit(part)
    return fp.hexdigest()


@functools.cache
def environment_digest() -> str:
    """What decides the machine code besides the IR and the target: the host CPU (name and
    features, which `vm.kernels` compiles for), the LLVM and llvmlite versions, and tvmlite's
    version and sources (their sizes and modification times, so edited code never meets
    kernels its older self compiled)."""
    import llvmlite
    import llvmlite.binding as llvm

    from .. import __version__ as tvmlite_version

    llvm.initialize_native_target()
    parts = [f"tvmlite {tvmlite_version}", f"llvmlite {llvmlite.__version__}",
             f"llvm {'.'.join(map(str, llvm.llvm_version_info))}", llvm.get_process_triple(),
             llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()]
    return fingerprint(parts, _source_stamp())


def _source_stamp() -> list[str]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamp: list[str] = []
    _stamp_folder(root, "", stamp)
    return stamp


_SKIPPED = ("tests", "bench", "docs", "tutorials")


def _stamp_folder(folder: str, rel: str, stamp: list[str]) -> None:
    """`path:size:mtime` of every .py file under `folder`, sorted by path (`rel`: its path
    relative to the package root). NOTE: scandir's entries, no path arithmetic per file: this
    is a good part of a warm build of a small model."""
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    subdirs = []
    for entry in entries:
        if entry.name.endswith(".py") and entry.is_file():
            st = entry.stat()
            stamp.append(f"{rel}{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        elif (entry.is_dir() and entry.name not in _SKIPPED and not entry.name.startswith(".")):
            subdirs.append(entry)
    for entry in subdirs:
        _stamp_folder(entry.path, f"{rel}{entry.name}/", stamp)
