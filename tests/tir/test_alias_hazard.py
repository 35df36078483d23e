"""A kernel accumulating in place into rows 4 KiB apart gives up `noalias` (tir/alias_hazard.py);
every other kernel keeps it. Results are checked against numpy either way."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir.alias_hazard import has_4k_row_hazard
from tvmlite.tir.lower import lower


def matmul(n: int):
    @T.prim_func
    def main(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"),
             C: T.Buffer((n, n), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(n, n, n):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    return main


def user_schedule(n: int, tile: int = 8):
    """Issue 15's user schedule, scaled down: C's rows accumulate in place."""
    sch = tvm.tir.Schedule(matmul(n))
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, tile])
    j0, j1 = sch.split(j, [None, tile])
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i0, j0, k0, i1, k1, j1)
    sch.vectorize(j1)
    sch.decompose_reduction(block, k0)
    return sch.mod["main"]


def cached_schedule(n: int):
    """The tile accumulates in a local cache; C is only stored: no hazard."""
    sch = tvm.tir.Schedule(matmul(n))
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    acc = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(acc, j0)
    sch.vectorize(j1)
    return sch.mod["main"]


@pytest.mark.parametrize("n,hazard", [(1024, True), (1056, False), (2048, True), (64, False)])
def test_rows_a_multiple_of_4k_apart_are_a_hazard(n, hazard) -> None:
    assert has_4k_row_hazard(lower(user_schedule(n))) is hazard


def test_a_cached_tile_and_an_elementwise_kernel_are_not() -> None:
    assert not has_4k_row_hazard(lower(cached_schedule(1024)))

    @T.prim_func
    def scale(A: T.Buffer((64, 1024), "float32")):
        for i, j in T.grid(64, 1024):
            with T.block("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] * T.float32(2)  # in place, but consecutive j: 4 bytes

    assert not has_4k_row_hazard(lower(scale))


@pytest.mark.parametrize("n", [1024, 96])
def test_the_kernel_computes_the_product_with_or_without_noalias(n) -> None:
    lib = tvm.build(user_schedule(n), target="llvm")
    source = lib.get_source()
    assert ("ptr noalias" in source) is (n != 1024)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n, n)).astype("float32")
    c = tvm.nd.array(np.zeros((n, n), "float32"))
    lib(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-3, atol=1e-3)
