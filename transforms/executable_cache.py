"""The build cache: a graph module's whole Executable on disk, keyed by the module as given.

The kernel cache (tir/kernel_cache.py) skips LLVM, but its keys are digests of *legalized*
kernels, so a warm build still ran the relax pipeline, legalization and one fingerprint per
kernel: most of a warm build. This cache keys the build before any of that: a digest of the
IRModule as given (relax variables numbered by first use, constants by the sha256 of their
bytes), the bound params, the target, the pipeline's name, the PassContext's settings, the
matmul knobs of the tuner, the operator and legalization registries, and
`environment_digest()` (CPU, LLVM, tvmlite's sources). The pipeline is a deterministic
function of these. It applies only to named pipelines on LLVM targets, with no pass
instruments and no registry entry from outside tvmlite (their code is not in the digest);
anything else builds as before.

An entry (`<key>.tve` in the kernel cache's directory, under its size bound and safety checks)
holds the bytecode, the function table, the kernel signatures, each kernel's kernel-cache key
(object code is not duplicated: a hit links the kernel cache's entries) and the constants,
their bytes at 64-byte-aligned offsets so that a hit maps them in one read, as aligned as the
build made them (kernels run at the same speed). A header with the lengths, the sha256 of the
metadata and a CRC32 of the constants catches torn or corrupt entries: those, and a missing
kernel entry, read as a miss and the build runs again (and rewrites the entry). The metadata
is a pickle: like the object code next to it, an entry becomes code in our process, which is
why the directory must be ours alone (`kernel_cache.unsafe_reason`).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
import sys
import zlib
from typing import Any, Callable

import numpy as np

from ..tir.kernel_cache import KernelCache, open_cache, remove, touch

ENTRY_SUFFIX = ".tve"
FORMAT = "tvmlite-build-cache-1"  # bump when what an entry holds changes
_MAGIC = b"TVMLEX01"
_HEADER = struct.Struct("<8sQQ32sI")  # magic, metadata bytes, data bytes, sha256(metadata),
# crc32(data)
_ALIGN = 64  # vm/ndarray.py's ALIGN: constants start where the build's did, on a cache line
# NOTE: a hit hashes the module's constants (for the key) and reads the build's (from the
# entry): ~1.5 ms per MB here. Above this much, that costs about what it saves (ResNet-18's
# 47 MB: ~80 ms vs ~90 ms of pipeline), so such builds go through the kernel cache alone.
MAX_CONSTANT_BYTES = 32 << 20

Builder = Callable[[Any, Any, Any, Any], Any]


def cached_build(mod: Any, target: Any, params: Any, pipeline: Any, build: Builder) -> Any:
    """`build(mod, target, params, pipeline)`, or its Executable from the cache."""
    cache = open_cache()
    key = build_key(mod, target, params, pipeline) if cache is not None else None
    if key is None or cache is None:
        return build(mod, target, params, pipeline)
    ex = load(cache, key, lambda: build(mod, target, params, pipeline))
    if ex is None:
        ex = build(mod, target, params, pipeline)
        store(cache, key, ex)
    return ex


def build_key(mod: Any, target: Any, params: Any, pipeline: Any) -> str | None:
    """The digest of everything the build of `mod` depends on; None when some of it has no
    stable text or lies outside what a digest can cover (then the build is not cached)."""
    from ..tir.bounds_instrument import enabled as bounds_checks_enabled
    from ..tir.kernel_build import parse_target
    from ..tir.kernel_fingerprint import NotFingerprintable, environment_digest, fingerprint
    from .pass_infra import PassContext

    if pipeline is not None and not isinstance(pipeline, str):
        return None  # a user's Pass object: its code is not ours to digest
    try:
        tgt = parse_target(target)
    except ValueError:
        return None  # the build raises the error
    ctx = PassContext.current()
    # NOTE: not imported when nobody imported it yet (it pulls in all of topi): no knobs then
    matmul_schedule = sys.modules.get(__name__.split(".")[0] + ".topi.matmul_schedule")
    knobs = matmul_schedule._KNOBS.get() if matmul_schedule else {}
    if tgt.kind != "llvm" or ctx.instruments or (matmul_schedule and
                                                 matmul_schedule._SEEN.get() is not None):
        return None  # instruments and the tuner's task extraction expect the passes to run
    registries = registry_state()
    if registries is None or constant_bytes(mod, params) > MAX_CONSTANT_BYTES:
        return None
    try:
        return fingerprint(FORMAT, environment_digest(), tgt, pipeline, bounds_checks_enabled(),
                           ctx.opt_level, sorted(map(str, ctx.required_pass)),
                           sorted(map(str, ctx.disabled_pass)), ctx.config,
                           knobs, registries, dict(params or {}), mod)
    except NotFingerprintable:
        return None


def constant_bytes(mod: Any, params: Any) -> int:
    """About how many bytes of tensor constants the module holds: those that bindings use
    directly and the bound params (a quick look, to decide; the key covers them all)."""
    from ..ir.expr import Constant, Function

    total = sum(_nbytes(v) for v in (params or {}).values())
    for func in mod.functions.values():
        if not isinstance(func, Function):
            continue
        for block in func.body.blocks:
            for binding in block.bindings:
                for arg in getattr(binding.value, "args", ()):
                    if isinstance(arg, Constant):
                        total += _nbytes(arg.data)
    return total


def _nbytes(x: Any) -> int:
    return int(getattr(getattr(x, "_arr", x), "nbytes", 0))  # an NDArray's or numpy's


def registry_state() -> list[Any] | None:
    """The operator attributes and legalization rules the pipeline looks up, with each
    function as its qualified name; None when one comes from outside tvmlite."""
    from ..ir.op import _OP_ATTRS
    from .legalize.bb_rules import BB_LEGALIZE
    from .legalize.rules import FOLD, LEGALIZE

    root = __name__.split(".")[0] + "."
    state: list[Any] = []
    for table in (_OP_ATTRS, LEGALIZE, FOLD, BB_LEGALIZE):
        for name in sorted(table):
            value = table[name]
            items = sorted(value.items()) if isinstance(value, dict) else [("", value)]
            for attr, v in items:
                if callable(v):
                    module = getattr(v, "__module__", None) or ""
                    if not module.startswith(root):
                        return None
                    v = f"{module}:{getattr(v, '__qualname__', '?')}"
                state.append((name, attr, v))
    return state


def store(cache: KernelCache, key: str, ex: Any) -> None:
    """Writes `ex` as entry `key`, when every part of it can be stored."""
    parts = _entry_parts(ex)
    if parts is None:
        return
    meta, arrays = parts
    try:
        meta_bytes = pickle.dumps(meta, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a constant pickle cannot write: build uncached
        return
    start = _aligned(_HEADER.size + len(meta_bytes))
    chunks: list[Any] = [b"", meta_bytes, bytes(start - _HEADER.size - len(meta_bytes))]
    crc, size = 0, 0
    for arr in arrays:
        pad = bytes(_aligned(size) - size)
        data = memoryview(arr)
        for chunk in (pad, data):
            crc = zlib.crc32(chunk, crc)
            chunks.append(chunk)
        size += len(pad) + arr.nbytes
    chunks[0] = _HEADER.pack(_MAGIC, len(meta_bytes), size,
                             hashlib.sha256(meta_bytes).digest(), crc)
    cache.write(cache.file_for(key, ENTRY_SUFFIX), chunks)


def _entry_parts(ex: Any) -> tuple[dict[str, Any], list[np.ndarray]] | None:
    """(metadata, constant arrays) of `ex`; None when it has parts an entry cannot hold."""
    from ..vm.ndarray import NDArray, kDLCPU

    units = getattr(ex.kernels, "units", None)
    if ex.externals or units is None or any(u.key is None for u in units):
        return None
    arrays: list[np.ndarray] = []
    table: list[tuple[int, int, str, tuple[int, ...]]] = []
    constants: list[tuple[str, Any]] = []
    offset = 0
    for c in ex.constants:
        if not isinstance(c, NDArray):
            constants.append(("value", c))
            continue
        if c.device.device_type != kDLCPU or c._arr.dtype.hasobject:
            return None
        arr = c._arr
        offset = _aligned(offset)
        table.append((offset, arr.nbytes, arr.dtype.str, arr.shape))
        arr = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
        constants.append(("array", (len(arrays), c.dtype)))
        arrays.append(arr)
        offset += arr.nbytes
    meta = {"func_table": ex.func_table, "functions": ex.functions, "constants": constants,
            "arrays": table, "signatures": ex.kernels.signatures,
            "units": [(u.name, u.key) for u in units]}
    return meta, arrays


def load(cache: KernelCache, key: str, rebuild: Callable[[], Any]) -> Any:
    """The Executable of entry `key`; None when it is missing, damaged, or a kernel it links
    is no longer in the cache (a damaged entry is removed). `rebuild` makes the build again
    when the kernels' LLVM text is asked for (export, `get_source`)."""
    file = cache.file_for(key, ENTRY_SUFFIX)
    buf = _read_aligned(str(file))
    if buf is None:
        return None
    meta = _check(buf)
    if meta is None:
        remove(file)
        return None
    objects = [cache.get(unit_key) for _, unit_key in meta["units"]]
    if any(obj is None for obj in objects):
        return None
    try:
        ex = _executable(meta, buf, objects, cache, rebuild)
    except Exception:  # noqa: BLE001 - an entry of another shape: rebuild and replace it
        remove(file)
        return None
    touch(file)
    return ex


def _read_aligned(path: str) -> np.ndarray | None:
    """The file's bytes in one buffer starting on an _ALIGN-byte boundary."""
    from ..vm.ndarray import aligned_empty

    try:
        with open(path, "rb", buffering=0) as f:
            size = os.fstat(f.fileno()).st_size
            buf = aligned_empty((size,), np.uint8)
            view, done = memoryview(buf), 0
            while done < size:
                n = f.readinto(view[done:])
                if not n:
                    return None
                done += n
    except OSError:
        return None
    return buf


def _check(buf: np.ndarray) -> dict[str, Any] | None:
    """The entry's metadata, when its header, lengths and checksums hold."""
    if buf.nbytes < _HEADER.size:
        return None
    magic, n_meta, n_data, digest, crc = _HEADER.unpack_from(buf)
    start = _aligned(_HEADER.size + n_meta)
    if magic != _MAGIC or start + n_data != buf.nbytes:
        return None
    meta_bytes = buf[_HEADER.size:_HEADER.size + n_meta].tobytes()
    if hashlib.sha256(meta_bytes).digest() != digest or zlib.crc32(buf[start:]) != crc:
        return None
    try:
        meta = pickle.loads(meta_bytes)
    except Exception:  # noqa: BLE001 - the digest held, so an entry of an older shape
        return None
    meta["data_start"] = start
    return meta


def _executable(meta: dict[str, Any], buf: np.ndarray, objects: list[bytes | None],
                cache: KernelCache, rebuild: Callable[[], Any]) -> Any:
    from ..vm.executable import Executable
    from ..vm.kernel_objects import KernelUnit
    from ..vm.kernels import KernelLibrary
    from ..vm.ndarray import NDArray

    start = meta["data_start"]
    arrays = [buf[start + off:start + off + n].view(np.dtype(dt)).reshape(shape)
              for off, n, dt, shape in meta["arrays"]]
    constants = [NDArray(arrays[v[0]], None, v[1]) if kind == "array" else v
                 for kind, v in meta["constants"]]
    units = [KernelUnit(name, unit_key, None, obj, from_cache=True)
             for (name, unit_key), obj in zip(meta["units"], objects)]
    kernels = KernelLibrary(lambda: rebuild().kernels.llvm_ir, meta["signatures"],
                            units=units, cache=cache)
    return Executable(meta["func_table"], meta["functions"], constants, kernels)


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN
