"""The persistent kernel cache: compiled object code on disk, keyed by a digest of the kernel.

Where: `$TVMLITE_CACHE_DIR`, else `$XDG_CACHE_HOME/tvmlite`, else `~/.cache/tvmlite`;
`TVMLITE_CACHE=0` turns it off. Entries become native code in our process, so a directory
that other users may write to (or that we do not own) is refused with a warning and the cache
is bypassed. Each entry is one file `<key>.tvk` written atomically (a temp file, then
`os.replace`), so two processes compiling at once never leave a torn entry; a header with the
payload's length and sha256 catches a truncated or corrupt one, which reads as a miss and is
rewritten. Whole builds (transforms/executable_cache.py, `<key>.tve`) live in the same
directory under the same bound. The total size is bounded (`TVMLITE_CACHE_MAX_BYTES`, default
256 MiB): after the first write of a process, and after every 1/16 of the bound written since,
the least recently used entries are removed until it fits (a hit refreshes an entry's
modification time).
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tempfile
import warnings
from pathlib import Path

_MAGIC = b"TVMLKC01"
_HEADER = struct.Struct("<8sQ32s")  # magic, payload length, sha256 of the payload
_SUFFIX = ".tvk"
# whole builds (transforms/executable_cache.py) share the directory and its size bound
SUFFIXES = (_SUFFIX, ".tve")
DEFAULT_MAX_BYTES = 256 << 20
_warned: set[str] = set()
_written: dict[Path, int] = {}  # per directory: bytes this process wrote since its last scan


class CacheWarning(UserWarning):
    """The kernel cache directory is unsafe or unusable; kernels are compiled uncached."""


def cache_dir() -> Path | None:
    """The cache directory this process should use, or None when caching is off."""
    if os.environ.get("TVMLITE_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    explicit = os.environ.get("TVMLITE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tvmlite"


def open_cache() -> "KernelCache | None":
    """The cache of `cache_dir()`, created if missing; None (after one warning per directory)
    when it is off, cannot be created, or is not safe to load code from."""
    path = cache_dir()
    if path is None:
        return None
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = unsafe_reason(path)
    except OSError as err:
        problem = f"cannot be created ({err.strerror})"
    if problem:
        _warn_once(str(path), f"tvmlite kernel cache {path} {problem}; compiling without it")
        return None
    return KernelCache(path, _max_bytes())


def unsafe_reason(path: Path) -> str | None:
    """Why loading native code from `path` would be unsafe, or None when it is ours alone."""
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"is owned by uid {st.st_uid}, not by us"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _max_bytes() -> int:
    text = os.environ.get("TVMLITE_CACHE_MAX_BYTES", "")
    try:
        return int(text) if text else DEFAULT_MAX_BYTES
    except ValueError:
        _warn_once("max", f"TVMLITE_CACHE_MAX_BYTES={text!r} is not an integer; using "
                          f"{DEFAULT_MAX_BYTES}")
        return DEFAULT_MAX_BYTES


def _warn_once(what: str, message: str) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(message, CacheWarning, stacklevel=3)


class KernelCache:
    """Entries (bytes) by key (a hex digest) in one directory, bounded to `max_bytes`."""

    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes

    def file_for(self, key: str, suffix: str = _SUFFIX) -> Path:
        """The file of entry `key` (`suffix`: which kind of entry)."""
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"cache key must be a lowercase hex digest, got {key!r}")
        return self.path / (key + suffix)

    def get(self, key: str) -> bytes | None:
        """The entry's payload; None when missing, truncated or corrupt (the bad file is
        removed so the next write replaces it)."""
        file = self.file_for(key)
        try:
            data = file.read_bytes()
        except OSError:
            return None
        payload = _unpack(data)
        if payload is None:
            remove(file)
            return None
        touch(file)
        return payload

    def put(self, key: str, payload: bytes) -> None:
        """Writes the entry atomically, then evicts the oldest entries over the bound.
        A write that fails (disk full, read-only) is skipped: the cache is an optimization."""
        header = _HEADER.pack(_MAGIC, len(payload), hashlib.sha256(payload).digest())
        self.write(self.file_for(key), [header, payload])

    def write(self, file: Path, chunks: list) -> None:
        """Writes `chunks` (bytes-like) as `file` atomically, then evicts the oldest entries
        over the bound; a failed write is skipped (the cache is an optimization)."""
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".tmp-", suffix=file.suffix)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    out.write(chunk)
            os.replace(tmp, file)
        except OSError:
            remove(Path(tmp))
            return
        # NOTE: a scan lists the whole directory, so it runs on this process's first write
        # there and then once per max_bytes / 16 written: the bound may be overshot by that
        size = sum(memoryview(c).nbytes for c in chunks)
        written = _written.get(self.path, self.max_bytes) + size
        _written[self.path] = written
        if written * 16 >= self.max_bytes:
            _written[self.path] = 0
            self.evict()

    def entries(self) -> list[tuple[float, int, Path]]:
        """(modification time, size, file) of every entry."""
        out = []
        try:
            files = list(self.path.iterdir())
        except OSError:
            return out
        for file in files:
            if file.name.startswith(".tmp-") or file.suffix not in SUFFIXES:
                continue
            try:
                st = file.stat()
            except OSError:
                continue  # removed by another process meanwhile
            out.append((st.st_mtime, st.st_size, file))
        return out

    def evict(self) -> None:
        """Removes the least recently used entries until the total fits `max_bytes`."""
        entries = sorted(self.entries(), key=lambda e: (e[0], e[2].name))
        total = sum(size for _, size, _ in entries)
        for _, size, file in entries:
            if total <= self.max_bytes:
                break
            remove(file)
            total -= size

    def clear(self) -> None:
        for _, _, file in self.entries():
            remove(file)


def touch(file: Path) -> None:
    """Marks an entry recently used (evicted last)."""
    try:
        os.utime(file)
    except OSError:
        pass


def _unpack(data: bytes) -> bytes | None:
    if len(data) < _HEADER.size:
        return None
    magic, length, digest = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if magic != _MAGIC or length != len(payload) or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def remove(file: Path) -> None:
    try:
        file.unlink()
    except OSError:
        pass
