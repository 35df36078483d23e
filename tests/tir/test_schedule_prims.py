"""tir.Schedule primitives: Before/Expected modules (structural equality), built kernels vs numpy
and vs the reference interpreter, legality errors that leave the module unchanged, the trace."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import tir as T
from tvmlite.tir import ForKind
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError

RNG = np.random.default_rng(1)


@I.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@I.ir_module
class Chain:
    @T.prim_func
    def main(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
        B = T.alloc_buffer((8, 12), "float32")
        for i, j in T.grid(8, 12):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(8, 12):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)


def _mm_args():
    a, b = RNG.standard_normal((2, 16, 16)).astype("float32")
    return [a, b, np.zeros((16, 16), "float32")], a @ b


def _chain_args():
    a = RNG.standard_normal((8, 12)).astype("float32")
    return [a, np.zeros((8, 12), "float32")], a * 2 + 1


def check(sch: Schedule, make_args) -> None:
    """The scheduled module computes what numpy and the interpreter compute."""
    args, want = make_args()
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(args[-1], want, rtol=1e-5, atol=1e-5)
    ref = [np.array(x) for x in args]
    ref[-1][...] = 0
    interpret(sch.mod["main"], *ref)
    np.testing.assert_allclose(ref[-1], want, rtol=1e-5, atol=1e-5)


def loop_kinds(sch: Schedule, block: str) -> list[tuple[str, int, str]]:
    return [(lp.loop_var.name, lp.extent.value, lp.kind.value)
            for lp in map(sch.get, sch.get_loops(sch.get_block(block)))]


def test_split_reorder_matches_expected() -> None:
    @T.prim_func
    def expected(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                 C: T.Buffer((16, 16), "float32")):
        for i_0, j, k, i_1 in T.grid(4, 16, 16, 4):
            with T.block("C"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                vj = T.axis.spatial(16, j)
                vk = T.axis.reduce(16, k)
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    sch = Schedule(Matmul)
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 4])
    sch.reorder(i0, j, k, i1)
    assert_structural_equal(sch.mod["main"].body, expected.body, map_free_vars=True)
    check(sch, _mm_args)


def test_non_divisible_split_adds_predicate() -> None:
    sch = Schedule(Matmul)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    sch.split(i, [None, 5])
    assert loop_kinds(sch, "C")[:2] == [("i_0", 4, "serial"), ("i_1", 5, "serial")]
    check(sch, _mm_args)


def test_fuse_parallel_vectorize_unroll() -> None:
    sch = Schedule(Chain)
    b = sch.get_block("B")
    ij = sch.fuse(*sch.get_loops(b))
    o, v = sch.split(ij, [None, 8])
    sch.parallel(o)
    sch.vectorize(v)
    ci, cj = sch.get_loops(sch.get_block("C"))
    sch.unroll(cj)
    assert loop_kinds(sch, "B") == [("i_j_fused_0", 12, "parallel"),
                                    ("i_j_fused_1", 8, "vectorized")]
    assert loop_kinds(sch, "C")[1][2] == "unroll"
    check(sch, _chain_args)


def test_compute_inline_matches_expected() -> None:
    @T.prim_func
    def expected(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
        for i, j in T.grid(8, 12):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)

    sch = Schedule(Chain)
    sch.compute_inline(sch.get_block("B"))
    # the root block held only B's allocation, so it goes with it (as the parser makes none)
    assert_structural_equal(sch.mod["main"].body, expected.body, map_free_vars=True)
    check(sch, _chain_args)


def test_reverse_compute_inline() -> None:
    sch = Schedule(Chain)
    sch.reverse_compute_inline(sch.get_block("C"))
    with pytest.raises(ScheduleError):
        sch.get_block("C")
    check(sch, _chain_args)


def test_compute_at_and_reverse_compute_at() -> None:
    sch = Schedule(Chain)
    ci, cj = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), ci)
    assert [lp.loop_var.name for lp in map(sch.get, sch.get_loops(sch.get_block("B")))] == \
        ["i", "ax0"]
    check(sch, _chain_args)
    sch2 = Schedule(Chain)
    bi, _ = sch2.get_loops(sch2.get_block("B"))
    sch2.reverse_compute_at(sch2.get_block("C"), bi)
    assert len(sch2.get_loops(sch2.get_block("C"))) == 2
    check(sch2, _chain_args)


def test_tiled_matmul_with_cache_write_and_decompose() -> None:
    sch = Schedule(Matmul)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    cw = sch.cache_write(b, 0, "local")
    sch.reverse_compute_at(cw, j0)
    sch.vectorize(j1)
    sch.unroll(i1)
    init = sch.decompose_reduction(b, k)
    sch.parallel(i0)
    assert sch.get(b).name == "C_update" and sch.get(init).name == "C_init"
    assert sch.get(cw).name == "C_local"
    check(sch, _mm_args)
    text = str(sch.trace)
    assert "sch.decompose_reduction(" in text and text.startswith("# from tvm import s_tir")


def test_cache_read_counts_and_places_like_tvm() -> None:
    """TVM's reads of a reduction block leave out its own output (index 0 is A, 1 is B), and
    the stage of an input buffer goes first in the scope, outside the consumer's loops."""
    sch = Schedule(Matmul)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    blk = sch.cache_read(sch.get_block("C"), 1, "shared")
    assert sch.get(blk).name == "B_shared"
    root = sch.mod["main"].body.block.body
    first, second = root.seq
    assert first.body.body.block.name == "B_shared" and second is not None
    assert second.loop_var is sch.get(i).loop_var  # the consumer's nest follows, untouched
    assert sch.get(sch.cache_read(sch.get_block("C"), 0, "local")).name == "A_local"
    check(sch, _mm_args)


def test_cache_read_of_an_intermediate_goes_after_its_producer() -> None:
    sch = Schedule(Chain)
    sch.cache_read(sch.get_block("C"), 0, "local")
    names = [s.body.body.block.name for s in sch.mod["main"].body.block.body.seq]
    assert names == ["B", "B_local", "C"]
    check(sch, _chain_args)


def test_trace_replays_on_a_fresh_schedule() -> None:
    sch = Schedule(Matmul)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [2, None])
    sch.reorder(j, i0)
    sch.parallel(j)
    fresh = Schedule(Matmul)
    sch.trace.apply_to_schedule(fresh)
    assert_structural_equal(fresh.mod["main"], sch.mod["main"])


@pytest.mark.parametrize("action, message", [
    (lambda s, b, ls: s.parallel(ls[2]), "reduction loop"),
    (lambda s, b, ls: s.vectorize(ls[2]), "reduction loop"),
    (lambda s, b, ls: s.split(ls[0], [None, None]), "at most one"),
    (lambda s, b, ls: s.split(ls[0], [3, 4]), "fewer than its extent"),
    (lambda s, b, ls: s.fuse(ls[0], ls[2]), "adjacent"),
    (lambda s, b, ls: s.compute_inline(b), "reduction"),
    (lambda s, b, ls: (s.decompose_reduction(b, ls[0]), s.decompose_reduction(b, ls[0])),
     "no init"),
])
def test_illegal_primitives_leave_module_unchanged(action, message) -> None:
    sch = Schedule(Matmul)
    b = sch.get_block("C")
    ls = sch.get_loops(b)
    before = sch.mod
    with pytest.raises(ScheduleError, match=message):
        action(sch, b, ls)
    if message != "no init":
        assert sch.mod is before


def test_compute_at_needs_a_consumer_under_the_loop() -> None:
    sch = Schedule(Chain)
    bi, _ = sch.get_loops(sch.get_block("B"))
    before = sch.mod
    with pytest.raises(ScheduleError, match="is an output block"):  # as TVM checks first
        sch.compute_at(sch.get_block("C"), bi)
    assert sch.mod is before


def test_schedule_of_prim_func_and_facades() -> None:
    sch = tvm.tir.Schedule(Matmul["main"])
    assert tvm.s_tir.Schedule is Schedule and sch.func_working_on.name_hint == "main"
    sch.work_on("main")
    assert [b.name for b in sch.get_child_blocks(sch.get_loops(sch.get_block("C"))[0])] == ["C"]
    sch.annotate(sch.get_block("C"), "meta", 1)
    assert dict(sch.get(sch.get_block("C")).annotations) == {"meta": 1}
    with pytest.raises(ScheduleError, match="no prim_func"):
        sch.work_on("nope")


def test_show_prints_something(capsys) -> None:
    sch = Schedule(Chain)
    sch.parallel(sch.get_loops(sch.get_block("B"))[0])
    sch.show()
    assert "parallel" in capsys.readouterr().out


def test_kind_of_loops_after_bind() -> None:
    sch = Schedule(Chain)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    assert sch.get(sch.get_loops(sch.get_block("B"))[0]).kind is ForKind.THREAD_BINDING


@I.ir_module
class TiledExpected:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        C_local = T.alloc_buffer((16, 16), scope="local")
        for i_0 in T.parallel(4):
            for j_0 in range(2):
                for i_1_init in range(4):
                    for j_1_init in T.vectorized(8):
                        with T.block("C_init"):
                            vi = T.axis.spatial(16, i_0 * 4 + i_1_init)
                            vj = T.axis.spatial(16, j_0 * 8 + j_1_init)
                            C_local[vi, vj] = T.float32(0)
                for k, i_1 in T.grid(16, 4):
                    for j_1 in T.vectorized(8):
                        with T.block("C_update"):
                            vi = T.axis.spatial(16, i_0 * 4 + i_1)
                            vj = T.axis.spatial(16, j_0 * 8 + j_1)
                            vk = T.axis.reduce(16, k)
                            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
                for ax0, ax1 in T.grid(4, 8):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(16, i_0 * 4 + ax0)
                        v1 = T.axis.spatial(16, j_0 * 8 + ax1)
                        C[v0, v1] = C_local[v0, v1]


def test_tiled_schedule_matches_tvms_output() -> None:
    """The module TVM 0.27 prints for the same schedule (reads/writes aside)."""
    sch = Schedule(Matmul)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    sch.reverse_compute_at(sch.cache_write(b, 0, "local"), j0)
    sch.vectorize(j1)
    sch.parallel(i0)
    sch.decompose_reduction(b, k)
    assert_structural_equal(sch.mod["main"], TiledExpected["main"])
    check(sch, _mm_args)


@I.ir_module
class FusedChainExpected:
    """What TVM 0.27 prints for test_fuse_parallel_vectorize_unroll's schedule (reads/writes
    aside, which tvmlite does not infer)."""

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
        B = T.alloc_buffer((8, 12))
        for i_j_fused_0 in T.parallel(12):
            for i_j_fused_1 in T.vectorized(8):
                with T.sblock("B"):
                    vi = T.axis.spatial(8, (i_j_fused_0 * 8 + i_j_fused_1) // 12)
                    vj = T.axis.spatial(12, (i_j_fused_0 * 8 + i_j_fused_1) % 12)
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i in range(8):
            for j in T.unroll(12):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)


def test_fuse_split_parallel_vectorize_unroll_match_tvms_output() -> None:
    sch = Schedule(Chain)
    b = sch.get_block("B")
    o, v = sch.split(sch.fuse(*sch.get_loops(b)), [None, 8])
    sch.parallel(o)
    sch.vectorize(v)
    sch.unroll(sch.get_loops(sch.get_block("C"))[1])
    assert_structural_equal(sch.mod["main"], FusedChainExpected["main"])
