"""The whole-build cache (transforms/executable_cache.py): a warm `relax.build` skips the
pipeline; any change to the module, its constants, the target or the pass settings misses;
damaged entries, missing kernels and concurrent builders rebuild correctly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.transforms import build as build_module
from tvmlite.transforms import executable_cache as ec
from tvmlite.transforms.legalize import rules
from tvmlite.transforms.pass_infra import PassContext
from tvmlite.vm.ndarray import data_ptr

PT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tvm.__file__)))
X = np.linspace(-1, 1, 32).astype("float32").reshape(4, 8)


def affine_module(w: np.ndarray, b: np.ndarray) -> tvm.IRModule:
    """main(x) = relu(x @ w + b) with w and b constants (w big enough to be aligned)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, w.shape[0]), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.matmul(x, relax.const(w)))
            y = bb.emit(relax.op.add(y, relax.const(b)))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def weights(seed: int = 0, n: int = 512) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, n)).astype("float32"),
            rng.standard_normal(n).astype("float32"))


def reference(w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(X @ w + b, 0)


def run(ex) -> np.ndarray:
    return relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(X)).numpy()


def _ours(value: object) -> bool:
    return not callable(value) or getattr(value, "__module__", "").startswith("tvmlite.")


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache directory, and registries without the rules other tests registered
    from outside tvmlite (which turn the build cache off, as they should)."""
    from tvmlite.ir import op as op_module
    from tvmlite.transforms.legalize import bb_rules

    monkeypatch.setattr(op_module, "_OP_ATTRS", {
        name: {k: v for k, v in attrs.items() if _ours(v)}
        for name, attrs in op_module._OP_ATTRS.items()})
    for module, table in ((rules, "LEGALIZE"), (rules, "FOLD"), (bb_rules, "BB_LEGALIZE")):
        for name, rule in list(getattr(module, table).items()):
            if not _ours(rule):
                monkeypatch.delitem(getattr(module, table), name)
    path = tmp_path / "cache"
    monkeypatch.setenv("TVMLITE_CACHE_DIR", str(path))
    monkeypatch.delenv("TVMLITE_CACHE", raising=False)
    return path


@pytest.fixture
def pipeline_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the builds that ran the relax pipeline (the misses)."""
    runs: list[int] = []
    original = build_module._run_pipeline

    def counting(mod, pipeline):
        runs.append(1)
        return original(mod, pipeline)

    monkeypatch.setattr(build_module, "_run_pipeline", counting)
    return runs


def build_entries(path: Path) -> list[Path]:
    return sorted(p for p in path.glob("*" + ec.ENTRY_SUFFIX) if not p.name.startswith("."))


def test_second_build_is_a_hit_with_the_same_results(cache_env: Path, pipeline_runs) -> None:
    w, b = weights()
    first = tvm.compile(affine_module(w, b), target="llvm")
    assert len(pipeline_runs) == 1 and len(build_entries(cache_env)) == 1
    second = tvm.compile(affine_module(w, b), target="llvm")  # a new, equal module
    assert len(pipeline_runs) == 1  # not run again
    assert all(u.from_cache for u in second.kernels.units)
    np.testing.assert_allclose(run(first), reference(w, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(run(first), run(second))
    assert second.as_text() == first.as_text()
    # constants come back as aligned as the build made them (kernels run at the same speed)
    # (the weight may be stored repacked for the matmul kernel: any constant as large)
    big = [c for c in second.constants if np.prod(getattr(c, "shape", ())) >= w.size]
    assert big and all(data_ptr(c._arr) % 64 == 0 for c in big)
    # the kernels' LLVM text (export, get_source) is made on demand by building again
    assert second.kernels.llvm_ir == first.kernels.llvm_ir


def test_a_new_process_hits(cache_env: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import numpy as np
        import tvmlite as tvm
        from tvmlite.transforms import build
        from test_build_cache import affine_module, reference, run, weights
        calls = []
        original = build._run_pipeline
        build._run_pipeline = lambda *a: calls.append(1) or original(*a)
        w, b = weights()
        y = run(tvm.compile(affine_module(w, b), target="llvm"))
        np.testing.assert_allclose(y, reference(w, b), rtol=1e-5, atol=1e-5)
        print("MISS" if calls else "HIT")
    """)
    env = {**os.environ, "PYTHONPATH": PT_ROOT}
    outs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert [o.stdout.split()[-1] for o in outs] == ["MISS", "HIT"], outs[-1].stderr[-2000:]


def test_any_change_misses(cache_env: Path, pipeline_runs) -> None:
    w, b = weights()
    tvm.compile(affine_module(w, b), target="llvm")
    w2 = w.copy()
    w2[3, 7] += 1.0  # one weight
    ex = tvm.compile(affine_module(w2, b), target="llvm")
    np.testing.assert_allclose(run(ex), reference(w2, b), rtol=1e-5, atol=1e-5)
    assert len(pipeline_runs) == 2
    tvm.compile(affine_module(w, b), target="llvm -num-cores=2")  # the target
    assert len(pipeline_runs) == 3
    with PassContext(opt_level=3):  # the pass settings
        tvm.compile(affine_module(w, b), target="llvm")
    assert len(pipeline_runs) == 4
    relax.build(affine_module(w, b), target="llvm", relax_pipeline="zero")  # the pipeline
    assert len(pipeline_runs) == 5
    tvm.compile(affine_module(w, b), target="llvm")  # all as at first: a hit
    assert len(pipeline_runs) == 5


def test_variables_are_told_apart_by_identity_not_name(cache_env: Path) -> None:
    """Two modules alike but for which of two same-named variables is returned."""
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    keys = []
    for pick in (0, 1):
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            a = bb.emit(relax.op.add(x, x), name_hint="v")
            c = bb.emit(relax.op.multiply(a, a), name_hint="v")
            bb.emit_func_output((a, c)[pick])
        keys.append(ec.build_key(bb.get(), "llvm", None, "default"))
    assert None not in keys and keys[0] != keys[1]


@pytest.mark.parametrize("damage", ["flip-constant", "flip-meta", "truncate", "garbage"])
def test_damaged_entry_rebuilds(cache_env: Path, pipeline_runs, damage: str) -> None:
    w, b = weights()
    tvm.compile(affine_module(w, b), target="llvm")
    (entry,) = build_entries(cache_env)
    data = bytearray(entry.read_bytes())
    if damage == "flip-constant":
        data[-5] ^= 0x40
    elif damage == "flip-meta":
        data[ec._HEADER.size + 3] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) // 2]
    else:
        data = bytearray(b"not an entry")
    entry.write_bytes(bytes(data))
    ex = tvm.compile(affine_module(w, b), target="llvm")
    assert len(pipeline_runs) == 2  # rebuilt ...
    np.testing.assert_allclose(run(ex), reference(w, b), rtol=1e-5, atol=1e-5)
    tvm.compile(affine_module(w, b), target="llvm")
    assert len(pipeline_runs) == 2  # ... and the entry rewritten whole


def test_missing_kernel_entry_rebuilds(cache_env: Path, pipeline_runs) -> None:
    w, b = weights()
    tvm.compile(affine_module(w, b), target="llvm")
    for kernel in cache_env.glob("*.tvk"):
        kernel.unlink()
    ex = tvm.compile(affine_module(w, b), target="llvm")
    assert len(pipeline_runs) == 2
    np.testing.assert_allclose(run(ex), reference(w, b), rtol=1e-5, atol=1e-5)


def test_builds_outside_the_digest_are_not_cached(cache_env: Path, pipeline_runs,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    w, b = weights()
    mod = affine_module(w, b)
    assert ec.build_key(mod, "llvm", None, "default") is not None
    custom = tvm.transform.Sequential([])  # a user's pass: its code is not ours to digest
    assert ec.build_key(mod, "llvm", None, custom) is None
    with PassContext(instruments=[object()]):  # instruments expect the passes to run
        assert ec.build_key(mod, "llvm", None, "default") is None
    monkeypatch.setitem(rules.LEGALIZE, "relax.nn.relu", lambda call, *args: None)
    assert ec.build_key(mod, "llvm", None, "default") is None  # a rule from outside tvmlite
    monkeypatch.setattr(ec, "MAX_CONSTANT_BYTES", w.nbytes // 2)  # too much to hash
    monkeypatch.delitem(rules.LEGALIZE, "relax.nn.relu")
    assert ec.build_key(mod, "llvm", None, "default") is None


def test_builders_at_once_in_two_processes(cache_env: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import numpy as np
        import tvmlite as tvm
        from test_build_cache import affine_module, reference, run, weights
        w, b = weights(seed=7)
        for _ in range(3):
            y = run(tvm.compile(affine_module(w, b), target="llvm"))
            np.testing.assert_allclose(y, reference(w, b), rtol=1e-5, atol=1e-5)
    """)
    env = {**os.environ, "PYTHONPATH": PT_ROOT}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env) for _ in range(2)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    (entry,) = build_entries(cache_env)
    assert not [p for p in cache_env.iterdir() if p.name.startswith(".tmp-")]
    assert ec._check(ec._read_aligned(str(entry))) is not None


def test_entries_share_the_kernel_cache_bound(cache_env: Path) -> None:
    from tvmlite.tir.kernel_cache import KernelCache

    w, b = weights()
    tvm.compile(affine_module(w, b), target="llvm")
    cache = KernelCache(cache_env, max_bytes=1)
    assert any(f.suffix == ec.ENTRY_SUFFIX for _, _, f in cache.entries())
    cache.evict()
    assert cache.entries() == []
