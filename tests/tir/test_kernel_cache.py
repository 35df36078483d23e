"""The persistent kernel cache (tir/kernel_cache.py, tir/cached_build.py): hits, misses on any
key change, concurrent writers, corrupt entries, the permissions check and eviction."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from tvmlite import te
from tvmlite.tir.cached_build import kernel_key
from tvmlite.tir.kernel_build import compile_prim_funcs, parse_target
from tvmlite.tir.kernel_cache import CacheWarning, KernelCache, cache_dir, open_cache
from tvmlite.transforms.build import build_kernels

PT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__import__("tvmlite").__file__)))


def affine(scale: float, n: int = 64, name: str = "affine"):
    """y = x * scale + 1 as a prim_func; `scale` and `n` change the code."""
    x = te.placeholder((n,), "float32", name="x")
    y = te.compute((n,), lambda i: x[i] * scale + 1.0, name="y")
    return te.create_prim_func([x, y]).with_attr("global_symbol", name)


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "kernels"
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(path))
    monkeypatch.delenv("TVMLITE_CACHE", raising=False)
    return path


def run_affine(func, target: str = "llvm") -> tuple[np.ndarray, object]:
    mod = build_kernels(func, target)
    x = np.linspace(-2, 2, func.buffer_of(func.params[0]).shape[0].value).astype("float32")
    y = np.zeros_like(x)
    mod(x, y)
    return y, mod.lib


def entries(path: Path) -> list[Path]:
    return sorted(p for p in path.glob("*.tvk") if not p.name.startswith("."))


def test_miss_then_hit_gives_the_same_results(cache_env: Path) -> None:
    x = np.linspace(-2, 2, 64).astype("float32")
    switch = sys.getswitchinterval()
    y1, lib1 = run_affine(affine(3.0))
    # the build's settings (tir/compile_mode.py) are undone
    assert sys.getswitchinterval() == switch and gc.isenabled()
    assert lib1.units[0].key and not lib1.units[0].from_cache and len(entries(cache_env)) == 1
    y2, lib2 = run_affine(affine(3.0))  # a new, equal prim_func: a hit
    unit = lib2.units[0]
    assert unit.from_cache and unit.obj == lib1.units[0].obj
    np.testing.assert_allclose(y1, x * 3.0 + 1.0, rtol=1e-6)
    np.testing.assert_array_equal(y1, y2)
    # the module's text, made on demand, is the uncached build's
    text, _ = compile_prim_funcs({"affine": affine(3.0)}, "llvm")
    assert lib2.llvm_ir == text and len(entries(cache_env)) == 1


def test_a_new_process_hits_with_another_hash_seed(cache_env: Path) -> None:
    """Keys must not depend on Python's per-process salted hash()."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_kernel_cache import affine
        from tvmlite.transforms.build import build_kernels
        lib = build_kernels(affine(3.0)).lib
        print("HIT" if lib.units[0].from_cache else "MISS", lib.units[0].key)
    """)
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": PT_ROOT}
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.split())
    assert outs[0][0] == "MISS" and outs[1] == ["HIT", outs[0][1]]


def test_any_key_change_misses(cache_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = affine(3.0)
    llvm = parse_target("llvm")
    key = kernel_key("affine", base, llvm)
    assert key == kernel_key("affine", affine(3.0), llvm)  # equal code, equal key
    changed = {
        "code (constant)": kernel_key("affine", affine(3.5), llvm),
        "code (shape)": kernel_key("affine", affine(3.0, n=65), llvm),
        "kernel name": kernel_key("affine2", affine(3.0, name="affine2"), llvm),
        "fast-math": kernel_key("affine", base, parse_target("llvm -fast-math=none")),
        "opt level": kernel_key("affine", base, parse_target("llvm -opt-level=2")),
        "cores": kernel_key("affine", base, parse_target("llvm -num-cores=4")),
        "cpu": kernel_key("affine", base, parse_target("llvm -mcpu=skylake")),
    }
    monkeypatch.setenv("TVMLITE_BOUNDS_CHECK", "1")  # instrumented kernels are other code
    changed["bounds checks"] = kernel_key("affine", base, llvm)
    monkeypatch.delenv("TVMLITE_BOUNDS_CHECK")
    assert len(set(changed.values()) | {key}) == len(changed) + 1, changed
    run_affine(base)
    y, lib = run_affine(base, "llvm -fast-math=none")  # another target: compiled and stored
    assert not lib.units[0].from_cache
    assert len(entries(cache_env)) == 2
    np.testing.assert_allclose(y, np.linspace(-2, 2, 64).astype("float32") * 3 + 1, rtol=1e-6)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_corrupt_entry_is_recompiled(cache_env: Path, damage: str) -> None:
    good, _ = run_affine(affine(2.0))
    (entry,) = entries(cache_env)
    data = entry.read_bytes()
    broken = {"truncate": data[: len(data) // 2], "garbage": b"not an entry" * 10, "empty": b"",
              "flip": data[:-5] + bytes([data[-5] ^ 0xFF]) + data[-4:]}[damage]
    entry.write_bytes(broken)
    again, lib = run_affine(affine(2.0))
    assert not lib.units[0].from_cache  # recompiled ...
    np.testing.assert_array_equal(again, good)
    assert entry.read_bytes() == data  # ... and the entry rewritten whole


def test_concurrent_writers_never_tear_an_entry(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path)
    payloads = {tag: bytes([tag]) * (3 << 20) for tag in (1, 2)}
    writer = textwrap.dedent("""
        import sys
        from tvmlite.tir.kernel_cache import KernelCache
        tag = int(sys.argv[2])
        cache = KernelCache(sys.argv[1])
        for _ in range(25):
            cache.put("ab" * 32, bytes([tag]) * (3 << 20))
    """)
    env = {**os.environ, "PYTHONPATH": PT_ROOT}
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(tmp_path), str(tag)], env=env)
             for tag in payloads]
    seen = set()
    while any(p.poll() is None for p in procs):
        got = cache.get("ab" * 32)
        if got is not None:
            assert got in payloads.values()  # whole, one writer's or the other's
            seen.add(got[0])
    assert all(p.wait() == 0 for p in procs)
    assert cache.get("ab" * 32) in payloads.values() and seen
    assert [p.name for p in tmp_path.iterdir()] == ["ab" * 32 + ".tvk"]  # no temp files left


def test_two_processes_compiling_at_once(cache_env: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import numpy as np
        from test_kernel_cache import affine, run_affine
        y, _ = run_affine(affine(5.0, n=256))
        np.testing.assert_allclose(y, np.linspace(-2, 2, 256).astype("float32") * 5 + 1,
                                   rtol=1e-6)
    """)
    env = {**os.environ, "PYTHONPATH": PT_ROOT}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    (entry,) = entries(cache_env)
    assert KernelCache(cache_env).get(entry.stem) is not None


def test_unsafe_directory_is_refused(cache_env: Path) -> None:
    cache_env.mkdir(mode=0o700)
    assert open_cache() is not None
    os.chmod(cache_env, 0o777)
    with pytest.warns(CacheWarning, match="writable by group or others"):
        assert open_cache() is None
    y, lib = run_affine(affine(4.0))  # compiled without the cache, still right
    assert lib.units is None and entries(cache_env) == []
    np.testing.assert_allclose(y, np.linspace(-2, 2, 64).astype("float32") * 4 + 1, rtol=1e-6)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_directory_owned_by_another_user_is_refused(cache_env: Path) -> None:
    cache_env.mkdir(mode=0o700)
    os.chown(cache_env, 12345, -1)
    with pytest.warns(CacheWarning, match="owned by uid 12345"):
        assert open_cache() is None


def test_location_and_switch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TVMLITE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "tvmlite"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "tvmlite"
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(tmp_path / "own"))
    assert cache_dir() == tmp_path / "own"
    monkeypatch.setenv("TVMLITE_CACHE", "0")
    assert cache_dir() is None and open_cache() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, lib = run_affine(affine(6.0))
    assert lib.units is None and not (tmp_path / "own").exists()


def test_eviction_removes_least_recently_used(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path, max_bytes=3 * 1100)
    keys = [f"{i:02x}" * 32 for i in range(3)]
    for age, key in enumerate(keys):
        cache.put(key, bytes(1000))
        os.utime(tmp_path / f"{key}.tvk", (1000 + age, 1000 + age))
    assert cache.get(keys[0]) is not None  # a hit refreshes the oldest
    cache.put("ff" * 32, bytes(1000))  # over the bound: the least recently used goes
    left = {p.stem for p in entries(tmp_path)}
    assert left == {keys[0], keys[2], "ff" * 32}
    with pytest.raises(ValueError, match="hex digest"):
        cache.get("../etc/passwd")


def test_helpers_of_separately_compiled_kernels_do_not_clash(cache_env: Path) -> None:
    """Each kernel is its own object file: same-named helpers stay private to their kernel."""
    from tvmlite.vm.kernel_objects import KernelUnit
    from tvmlite.vm.kernel_signature import KernelParam, KernelSignature
    from tvmlite.vm.kernels import KernelLibrary

    def unit(name: str, value: float) -> KernelUnit:
        text = (f"@scale = global float {value:.1f}\n"  # a variable, called out of line:
                f"define float @helper() noinline {{\n"  # nothing for LLVM to fold away
                f"  %v = load volatile float, ptr @scale\n  ret float %v\n}}\n"
                f"define void @{name}(ptr %out) {{\n  %v = call float @helper()\n"
                f"  store float %v, ptr %out\n  ret void\n}}\n")
        return KernelUnit(name, None, text)

    sig = {n: KernelSignature(n, (KernelParam("out", "buffer", "float32", (1,)),), ())
           for n in ("k1", "k2")}
    lib = KernelLibrary("", sig, units=[unit("k1", 1.0), unit("k2", 2.0)]).load()
    outs = [np.zeros(1, np.float32) for _ in range(2)]
    lib.get_function("k1")(outs[0].ctypes.data)
    lib.get_function("k2")(outs[1].ctypes.data)
    assert [o[0] for o in outs] == [1.0, 2.0]
