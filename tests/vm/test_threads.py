"""One VirtualMachine (and several VMs sharing one Executable) called from many threads at once
must give every caller its own right answer, on every VM path (issue 13, item 1).

The tensors are large enough that the host function releases the GIL (vm/fastpath.py,
GIL_RELEASE_BYTES), so calls really overlap; intermediates live in the fast path's arena."""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import ir as I, relax as R, tir as T
from tvmlite.vm.fastpath import GIL_RELEASE_BYTES
from tvmlite.vm.vm import VirtualMachine

M, K, N = 64, 256, 256
THREADS, CALLS = 4, 8


@I.ir_module
class Static:
    @T.prim_func
    def matmul(A: T.Buffer((M, K), "float32"), B: T.Buffer((K, N), "float32"),
               C: T.Buffer((M, N), "float32")):
        for i, j, k in T.grid(M, N, K):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(A: T.Buffer((M, N), "float32"), B: T.Buffer((M, N), "float32")):
        for i, j in T.grid(M, N):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @T.prim_func
    def add(A: T.Buffer((M, N), "float32"), B: T.Buffer((M, N), "float32"),
            C: T.Buffer((M, N), "float32")):
        for i, j in T.grid(M, N):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @R.function
    def main(x: R.Tensor((M, K), "float32"), w: R.Tensor((K, N), "float32"),
             b: R.Tensor((M, N), "float32")):
        cls = Static
        with R.dataflow():
            y = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((M, N), "float32"))
            z = R.call_tir(cls.relu, (y,), out_sinfo=R.Tensor((M, N), "float32"))
            out = R.call_tir(cls.add, (z, b), out_sinfo=R.Tensor((M, N), "float32"))
            R.output(out)
        return out


@I.ir_module
class Symbolic:
    @T.prim_func
    def matmul(a: T.handle, B: T.Buffer((K, N), "float32"), c: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m, K), "float32")
        C = T.match_buffer(c, (m, N), "float32")
        for i, j, k in T.grid(m, N, K):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(a: T.handle, b: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m, N), "float32")
        B = T.match_buffer(b, (m, N), "float32")
        for i, j in T.grid(m, N):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @T.prim_func
    def add(a: T.handle, b: T.handle, c: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m, N), "float32")
        B = T.match_buffer(b, (m, N), "float32")
        C = T.match_buffer(c, (m, N), "float32")
        for i, j in T.grid(m, N):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @R.function
    def main(x: R.Tensor(("m", K), "float32"), w: R.Tensor((K, N), "float32"),
             b: R.Tensor(("m", N), "float32")):
        m = T.int64()
        cls = Symbolic
        with R.dataflow():
            y = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((m, N), "float32"))
            z = R.call_tir(cls.relu, (y,), out_sinfo=R.Tensor((m, N), "float32"))
            out = R.call_tir(cls.add, (z, b), out_sinfo=R.Tensor((m, N), "float32"))
            R.output(out)
        return out


@pytest.fixture(scope="module")
def executables() -> dict[str, Any]:
    return {"static": tvm.compile(Static, target="llvm"),
            "symbolic": tvm.compile(Symbolic, target="llvm")}


def _inputs(seed: int, rows: int = M) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype("float32") for s in [(rows, K), (K, N), (rows, N)]]


def _expected(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(x @ w, 0) + b


def _hammer(mains: list[Callable[..., Any]], rows: Callable[[int], int] = lambda t: M) -> None:
    """THREADS threads, thread t calling mains[t % len(mains)] CALLS times on its own inputs."""
    wrong: list[str] = []
    start = threading.Barrier(THREADS)

    def work(t: int) -> None:
        f = mains[t % len(mains)]
        start.wait()
        for c in range(CALLS):
            args = _inputs(100 * t + c, rows(t))
            try:
                got = f(*[tvm.nd.array(a) for a in args]).numpy()
            except Exception as err:  # noqa: BLE001  # a raising thread must fail the test
                wrong.append(f"thread {t} call {c}: {type(err).__name__}: {err}")
                return
            if not np.allclose(got, _expected(*args), rtol=1e-4, atol=1e-3):
                wrong.append(f"thread {t} call {c}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong, f"{len(wrong)} of {THREADS * CALLS} results were wrong: {wrong[:5]}"


def test_the_calls_release_the_gil() -> None:
    assert (M * K + K * N + 4 * M * N) * 4 > GIL_RELEASE_BYTES  # else nothing overlaps


@pytest.mark.parametrize("kind, mode, path", [("static", "auto", "static"),
                                              ("symbolic", "auto", "symbolic"),
                                              ("static", "closure", None),
                                              ("static", "interpreter", None)])
def test_one_vm_many_threads(executables, kind: str, mode: str, path: str | None) -> None:
    f = VirtualMachine(executables[kind], tvm.cpu(), mode=mode)["main"]
    assert f.fast_path == path
    _hammer([f])


def test_symbolic_path_with_a_different_shape_per_thread(executables) -> None:
    """Threads binding different shapes: the arena a binding sizes must not move under another."""
    f = VirtualMachine(executables["symbolic"], tvm.cpu())["main"]
    _hammer([f], rows=lambda t: M // 2 + 16 * t)


def test_separate_vms_sharing_one_executable(executables) -> None:
    ex = executables["static"]
    _hammer([VirtualMachine(ex, tvm.cpu())["main"] for _ in range(THREADS)])


def test_first_calls_race_to_build(executables) -> None:
    """Threads making a fresh VM's first calls together all get right answers."""
    vm = VirtualMachine(executables["static"], tvm.cpu())
    _hammer([lambda *a: vm["main"](*a)])
