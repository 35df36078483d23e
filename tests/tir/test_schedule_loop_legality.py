"""split / fuse / reorder legality as TVM has it (bound, annotated, dependent, scan, non-affine
loops are refused, module unchanged) and split of a symbolic extent with an inferred factor."""

from __future__ import annotations

import numpy as np
import pytest

from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


@T.prim_func
def annotated(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in T.serial(16, annotations={"pragma_x": 1}):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def dependent(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(i):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scan_and_strided(A: T.Buffer((16, 16, 64), "float32"), B: T.Buffer((16, 16, 64), "float32")):
    for i, j, k in T.grid(16, 16, 8):
        with T.block("B"):
            vi = T.axis.S(16, i)
            vj = T.axis.scan(16, j)
            vk = T.axis.S(64, k * 8)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)


@T.prim_func
def symbolic(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.S(n, i)
            B[vi] = A[vi] + T.float32(1)


def _refused(func, action, message) -> None:
    sch = Schedule(func)
    loops = sch.get_loops(sch.get_block("B"))
    before = sch.mod
    with pytest.raises(ScheduleError, match=message):
        action(sch, loops)
    assert sch.mod is before


@pytest.mark.parametrize("action, message", [
    (lambda s, ls: s.split(ls[1], [None, 4]), "annotations"),
    (lambda s, ls: s.fuse(ls[0], ls[1]), "annotations"),
])
def test_annotated_loops_cannot_split_or_fuse(action, message) -> None:
    _refused(annotated, action, message)


def test_bound_loop_cannot_split() -> None:
    sch = Schedule(annotated)
    i = sch.get_loops(sch.get_block("B"))[0]
    sch.bind(i, "blockIdx.x")
    _refused(sch.mod["main"], lambda s, ls: s.split(ls[0], [None, 4]), "thread_binding")


def test_fuse_refuses_dependent_extent() -> None:
    _refused(dependent, lambda s, ls: s.fuse(ls[0], ls[1]), "depends on an outer loop")


@pytest.mark.parametrize("action, message", [
    (lambda s, ls: s.reorder(ls[1], ls[0]), "scan or opaque"),
    (lambda s, ls: s.reorder(ls[2], ls[0]), "non-affinely"),
])
def test_reorder_refuses_scan_and_non_affine(action, message) -> None:
    _refused(scan_and_strided, action, message)


@pytest.mark.parametrize("n", [1, 7, 8, 13])
def test_split_symbolic_extent_infers_a_ceil_div_factor(n) -> None:
    sch = Schedule(symbolic)
    (i,) = sch.get_loops(sch.get_block("B"))
    outer, inner = sch.split(i, [None, 4])
    assert sch.get(inner).extent.value == 4
    a = np.arange(n, dtype="float32")
    b = np.zeros(n, "float32")
    interpret(sch.mod["main"], a, b, n)
    np.testing.assert_array_equal(b, a + 1)


@pytest.mark.parametrize("level, text", [
    ("detail", "Cannot find a block with the name: nope"),
    ("fast", "Cannot find a block with the specified name"),
    ("none", "(not rendered)"),
])
def test_error_render_levels(level, text) -> None:
    sch = Schedule(annotated, error_render_level=level)
    with pytest.raises(ScheduleError, match=text.replace("(", r"\(").replace(")", r"\)")):
        sch.get_block("nope")
    with pytest.raises(ValueError, match="error_render_level"):
        Schedule(annotated, error_render_level="loud")


@T.prim_func
def opaque(A: T.Buffer((16,), "float32")):
    for i in range(15):
        with T.block("opaque"):
            A[i + 1] = A[i + 1] + A[i]


@T.prim_func
def rowsum(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@pytest.mark.parametrize("kind", ["parallel", "vectorize"])
def test_loop_used_opaquely_cannot_be_parallel_or_vectorized(kind) -> None:
    sch = Schedule(opaque)
    (i,) = sch.get_loops(sch.get_block("opaque"))
    before = sch.mod
    with pytest.raises(ScheduleError, match="directly"):
        getattr(sch, kind)(i)
    assert sch.mod is before


def test_reduction_loop_binds_only_to_threadidx() -> None:
    sch = Schedule(rowsum)
    _, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="cross-thread"):
        sch.bind(k, "blockIdx.x")
    sch.bind(k, "threadIdx.x")
    assert sch.get(k).thread_tag == "threadIdx.x"


@T.prim_func
def ten(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("B"):
            vi = T.axis.S(10, i)
            B[vi] = A[vi] + T.float32(1)


def test_loop_partition_adds_a_remainder_part_and_refuses_annotated_loops() -> None:
    sch = Schedule(ten)
    (i,) = sch.get_loops(sch.get_block("B"))
    parts = sch.loop_partition(i, [2, 3])
    assert [sch.get(p).extent.value for p in parts] == [2, 3, 5]  # TVM 0.27 gives the same
    a = np.arange(10, dtype="float32")
    b = np.zeros(10, "float32")
    interpret(sch.mod["main"], a, b)
    np.testing.assert_array_equal(b, a + 1)
    _refused(annotated, lambda s, ls: s.loop_partition(ls[1], [4, None]), "annotations")


@T.prim_func(s_tir=True)
def first_hundred(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("B"):
            T.where(i * 256 + j * 16 + k < 100)
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)


def test_reorder_refuses_a_predicate_fusing_loops_no_iter_var_is_bound_to():
    sch = Schedule(first_hundred)
    i, _, k = sch.get_loops("B")
    before = sch.mod
    with pytest.raises(ScheduleError, match="predicate .* of block 'B' fuses loops"):
        sch.reorder(k, i)
    assert sch.mod is before


def test_reorder_accepts_a_splits_guard():
    # the guard `k_0 * 5 + k_1 < 16` is the binding of vk: an affine split, reorderable
    sch = Schedule(plain_cube)
    _, _, k = sch.get_loops("B")
    k0, k1 = sch.split(k, [None, 5])
    sch.reorder(k1, k0)
    assert [sch.get(lp).loop_var.name for lp in sch.get_loops("B")] == ["i", "j", "k_1", "k_0"]
    a = np.random.default_rng(5).standard_normal((16, 16, 16)).astype("float32")
    b = np.zeros((16, 16, 16), "float32")
    interpret(sch.mod["main"], a, b)
    np.testing.assert_allclose(b, a * 2, rtol=1e-6)


@T.prim_func(s_tir=True)
def plain_cube(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
