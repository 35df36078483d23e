"""Helper processes compiling kernel modules (vm/llvm_helpers.py): the same object code as
this process's LLVM, and a clean fallback to it when a helper cannot do the job."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tvmlite import te
from tvmlite.tir.cached_build import kernel_ir
from tvmlite.tir.kernel_build import parse_target
from tvmlite.vm import kernels, llvm_helpers
from tvmlite.vm.kernel_objects import KernelUnit, link_objects


def tiled_sum_ir(name: str = "colsum") -> str:
    """The IR of a kernel big enough to go to a helper (an unrolled, vectorized tile)."""
    a = te.placeholder((64, 256), "float32", name="a")
    k = te.reduce_axis((0, 64), name="k")
    s = te.compute((256,), lambda j: te.sum(a[k, j] * 2.0, axis=k), name="s")
    func = te.create_prim_func([a, s]).with_attr("global_symbol", name)
    from tvmlite import tir

    sch = tir.Schedule(func)
    (j, kk) = sch.get_loops(sch.get_block("s"))
    jo, ji = sch.split(j, [None, 16])
    ko, ki = sch.split(kk, [None, 32])
    sch.reorder(jo, ko, ki, ji)
    sch.unroll(ki)
    sch.vectorize(ji)
    return kernel_ir(name, sch.mod["main"], parse_target("llvm"))


@pytest.fixture
def one_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TVMLITE_LLVM_HELPERS", "1")
    monkeypatch.setattr(llvm_helpers, "_broken", False)


def test_a_helper_makes_the_same_object_code(one_helper: None) -> None:
    text = tiled_sum_ir()
    assert len(text) >= llvm_helpers.HELPER_MIN_IR
    here = kernels.compile_unit(KernelUnit("colsum", None, text), None)
    there = llvm_helpers.compile_in_helper("colsum", text)
    assert there == here
    assert llvm_helpers.running()  # it stays for the next build
    # and the helper's object runs: column sums times 2, against numpy
    engine, _keep = link_objects([there], kernels._new_target_machine())
    import ctypes

    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
        engine.get_function_address("colsum"))
    a = np.random.default_rng(0).standard_normal((64, 256)).astype("float32")
    s = np.zeros(256, "float32")
    fn(a.ctypes.data, s.ctypes.data)
    np.testing.assert_allclose(s, (a * 2).sum(axis=0), rtol=1e-4, atol=1e-4)


def test_invalid_ir_falls_back_to_the_located_error(one_helper: None) -> None:
    bad = "define void @k() {\n  ret i32 0\n}\n" + ";" * llvm_helpers.HELPER_MIN_IR
    assert llvm_helpers.compile_in_helper("k", bad) is None  # the helper refuses it
    # a busy LLVM thread sends the big module to the helper; its refusal ends in our error
    with kernels._IN_PROCESS:
        result: list[BaseException] = []

        def compile_bad() -> None:
            try:
                kernels.compile_unit(KernelUnit("k", None, bad), None)
            except BaseException as err:  # noqa: BLE001 - what the test inspects
                result.append(err)

        t = threading.Thread(target=compile_bad)
        t.start()
        t.join(0.5)
        assert t.is_alive()  # waiting for the in-process LLVM after the helper said no
    t.join(30)
    assert result and isinstance(result[0], kernels.KernelLoadError)
    assert "invalid LLVM IR" in str(result[0]) and "'k'" in str(result[0])


def test_no_helpers_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TVMLITE_LLVM_HELPERS", "0")
    monkeypatch.setattr(llvm_helpers, "_idle", [])
    assert llvm_helpers.helper_limit() == 0
    assert llvm_helpers.compile_in_helper("colsum", tiled_sum_ir()) is None


def test_a_dead_helper_is_not_reused(one_helper: None, monkeypatch: pytest.MonkeyPatch) -> None:
    text = tiled_sum_ir()
    assert llvm_helpers.compile_in_helper("colsum", text) is not None
    for proc in llvm_helpers.running():
        proc.kill()
        proc.wait()
    assert llvm_helpers.compile_in_helper("colsum", text) is None  # it died: no crash
    assert llvm_helpers._broken  # and this process compiles in-process from now on
    assert kernels.compile_unit(KernelUnit("colsum", None, text), None)


def test_the_thread_pool_object_comes_from_the_cache(tmp_path, monkeypatch) -> None:
    import llvmlite.binding as llvm

    from tvmlite.tir.kernel_cache import KernelCache
    from tvmlite.vm import parallel_runtime as pr

    cache = KernelCache(str(tmp_path))
    tm = kernels._new_target_machine()
    first = pr._pool_object(pr.runtime_ir(3), tm, cache)
    assert len(first) > 100  # object code, stored

    def no_compiling(*args, **kwargs):
        raise AssertionError("the pool was compiled again")

    monkeypatch.setattr(llvm, "parse_assembly", no_compiling)
    assert pr._pool_object(pr.runtime_ir(3), tm, cache) == first  # a hit
    with pytest.raises(AssertionError, match="compiled again"):
        pr._pool_object(pr.runtime_ir(4), tm, cache)  # other thread count: another key
