"""Run-time bounds checks (issue 13 item 2b): `PassContext(config={"tir.instrument_bound_checkers":
True})` or env TVMLITE_BOUNDS_CHECK=1 make an out-of-bounds index that no compile-time proof
catches (data-dependent, symbolic) raise an IndexError naming kernel, buffer and index."""
from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I, relax as R, tir as T
from tvmlite.transforms.pass_infra import PassContext
from tvmlite.vm.bounds_runtime import BoundsCheckError

CHECKS = {"tir.instrument_bound_checkers": True}


@T.prim_func
def gather(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int32"),
           B: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "gather"})
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[idx[vi]]


@T.prim_func
def shifted(a: T.handle, b: T.handle, s: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi + s]


def _run_gather(f, index: list[int]) -> np.ndarray:
    a = np.arange(8, dtype="float32") * 10
    out = tvm.nd.array(np.zeros(4, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(np.array(index, "int32")), out)
    return out.numpy()


def test_data_dependent_index_raises_with_kernel_buffer_and_index() -> None:
    with PassContext(config=CHECKS):
        f = tvm.build(gather, target="llvm")
    np.testing.assert_array_equal(_run_gather(f, [7, 0, 3, 3]), [70, 0, 30, 30])
    with pytest.raises(BoundsCheckError, match=r"kernel 'gather': index 1000000 of buffer A "
                                               r"is out of bounds \(extent 8\)"):
        _run_gather(f, [1, 1000000, 2, 3])
    with pytest.raises(IndexError, match="index -1 of buffer A"):
        _run_gather(f, [-1, 0, 0, 0])
    np.testing.assert_array_equal(_run_gather(f, [1, 2, 3, 4]), [10, 20, 30, 40])  # still fine


def test_without_the_switch_nothing_is_inserted(monkeypatch) -> None:
    monkeypatch.delenv("TVMLITE_BOUNDS_CHECK", raising=False)
    assert "tvmlite_bounds_fail" not in tvm.build(gather, target="llvm").get_source()


def test_symbolic_index_checked_through_the_env_switch(monkeypatch) -> None:
    monkeypatch.setenv("TVMLITE_BOUNDS_CHECK", "1")
    f = tvm.build(shifted, target="llvm")
    a, out = np.arange(6, dtype="float32"), tvm.nd.array(np.zeros(4, "float32"))
    f(tvm.nd.array(a[:4]), out, 0)
    np.testing.assert_array_equal(out.numpy(), a[:4])
    with pytest.raises(BoundsCheckError, match=r"buffer A is out of bounds \(extent n\)"):
        f(tvm.nd.array(a[:4]), out, 2)


@I.ir_module
class Gather:
    @T.prim_func
    def take(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int32"),
             B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[idx[vi]]

    @R.function
    def main(a: R.Tensor((8,), "float32"), idx: R.Tensor((4,), "int32")):
        cls = Gather
        y = R.call_tir(cls.take, (a, idx), out_sinfo=R.Tensor((4,), "float32"))
        return y


@pytest.mark.parametrize("mode", ["auto", "closure", "interpreter"])
def test_vm_paths_raise(mode: str) -> None:
    with PassContext(config=CHECKS):
        ex = relax.build(Gather, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu(), mode=mode)
    a = np.arange(8, dtype="float32")
    ok = vm["main"](tvm.nd.array(a), tvm.nd.array(np.array([0, 2, 4, 6], "int32")))
    np.testing.assert_array_equal(ok.numpy(), [0, 2, 4, 6])
    with pytest.raises(BoundsCheckError, match="kernel 'take': index 9 of buffer A"):
        vm["main"](tvm.nd.array(a), tvm.nd.array(np.array([0, 9, 4, 6], "int32")))


@I.ir_module
class ParallelGather:
    @T.prim_func
    def take(A: T.Buffer((64,), "float32"), idx: T.Buffer((64,), "int32"),
             B: T.Buffer((64,), "float32")):
        for i in T.parallel(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[idx[vi]]

    @R.function
    def main(a: R.Tensor((64,), "float32"), idx: R.Tensor((64,), "int32")):
        cls = ParallelGather
        y = R.call_tir(cls.take, (a, idx), out_sinfo=R.Tensor((64,), "float32"))
        return y


def test_failure_in_a_parallel_task_of_a_small_call_raises() -> None:
    """Small calls normally run holding the GIL; a check failing in a pool thread (which calls
    back into Python) must not deadlock with them."""
    with PassContext(config=CHECKS):
        ex = relax.build(ParallelGather, target="llvm")
    f = relax.VirtualMachine(ex, tvm.cpu())["main"]
    a = np.arange(64, dtype="float32")
    bad = np.arange(64, dtype="int32")
    bad[::2] = 64 + np.arange(32)
    for _ in range(5):
        with pytest.raises(BoundsCheckError, match="kernel 'take': index 6[4-9]|index [7-9]"):
            f(tvm.nd.array(a), tvm.nd.array(bad))
    np.testing.assert_array_equal(f(tvm.nd.array(a), tvm.nd.array(bad[::-1] % 64)).numpy(),
                                  a[bad[::-1] % 64])
