"""cache_read / cache_write placed and sized as TVM 0.27 does (tir/schedule/cache_stage.py):
the stage sits right before the first consumer in the innermost list holding it and the
producer; the cache holds only what the scope needs, accesses shifted by the region's start.
Every schedule is checked against numpy, compiled and interpreted, and by trace replay."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip,
)
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule, ScheduleError


def _check(sch: Schedule, make_args, expect) -> None:
    for run in (lambda *a: tvm.build(sch.mod)(*a), lambda *a: interpret(sch.mod["main"], *a)):
        args = make_args()
        run(*args)
        np.testing.assert_allclose(args[-1], expect(*args[:-1]), rtol=1e-6)


@T.prim_func(s_tir=True)
def tiles(X: T.Buffer((32, 32), "float32"), Y: T.Buffer((32, 32), "float32")):
    T_ = T.sblock_alloc_buffer((32, 32))
    for i0 in range(4):
        with T.sblock("tile"):
            i = T.axis.remap("S", [i0])
            for x, y in T.grid(8, 32):
                with T.sblock("square"):
                    vi = T.axis.S(32, i * 8 + x)
                    vj = T.axis.S(32, y)
                    T_[vi, vj] = X[vi, vj] * X[vi, vj]
            for x, y in T.grid(8, 32):
                with T.sblock("inc"):
                    vi = T.axis.S(32, i * 8 + x)
                    vj = T.axis.S(32, y)
                    Y[vi, vj] = T_[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def tiles_cache_read(X: T.Buffer((32, 32), "float32"), Y: T.Buffer((32, 32), "float32")):
    T_ = T.sblock_alloc_buffer((32, 32))
    for i0 in range(4):
        with T.sblock("tile"):
            i = T.axis.remap("S", [i0])
            T_local = T.sblock_alloc_buffer((8, 32), scope="local")
            for x, y in T.grid(8, 32):
                with T.sblock("square"):
                    vi = T.axis.S(32, i * 8 + x)
                    vj = T.axis.S(32, y)
                    T_[vi, vj] = X[vi, vj] * X[vi, vj]
            for ax0, ax1 in T.grid(8, 32):
                with T.sblock("T__local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    T_local[v0, v1] = T_[i * 8 + v0, v1]
            for x, y in T.grid(8, 32):
                with T.sblock("inc"):
                    vi = T.axis.S(32, i * 8 + x)
                    vj = T.axis.S(32, y)
                    Y[vi, vj] = T_local[vi - i * 8, vj] + T.float32(1)


def _tiles_args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((32, 32)).astype("float32"), np.zeros((32, 32), "float32")


def test_cache_read_inside_a_scope_block_holds_its_tile_only():
    sch = Schedule(tiles)
    rv = sch.cache_read("inc", "T_", "local")
    assert sch.get(rv).name_hint == "T__local"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], tiles_cache_read)
    verify_trace_roundtrip(sch, tiles)
    _check(sch, _tiles_args, lambda x: x * x + 1)


def test_cache_write_inside_a_scope_block_shifts_the_producer():
    sch = Schedule(tiles)
    sch.cache_write("square", 0, "local")
    text = sch.mod["main"].script()
    assert 'T__local = T.sblock_alloc_buffer((8, 32), scope="local")' in text
    assert "T__local[vi - i * 8, vj] = X[vi, vj] * X[vi, vj]" in text
    assert "T_[i * 8 + v0, v1] = T__local[v0, v1]" in text
    verify_trace_roundtrip(sch, tiles)
    _check(sch, _tiles_args, lambda x: x * x + 1)


@T.prim_func(s_tir=True)
def two_users(X: T.Buffer((64,), "float32"), Z: T.Buffer((64,), "float32")):
    A = T.sblock_alloc_buffer((64,))
    B = T.sblock_alloc_buffer((64,))
    for i in range(4):
        for j in range(16):
            with T.sblock("A"):
                vi = T.axis.S(64, i * 16 + j)
                A[vi] = X[vi] + T.float32(1)
        for j in range(16):
            with T.sblock("B"):
                vi = T.axis.S(64, i * 16 + j)
                B[vi] = A[vi] * T.float32(2)
    for i in range(64):
        with T.sblock("Z"):
            vi = T.axis.S(64, i)
            Z[vi] = A[vi] + B[vi]


def _two_args():
    return np.arange(64, dtype="float32"), np.zeros(64, "float32")


def _two_expect(x):
    return (x + 1) + (x + 1) * 2


def _loop_body_blocks(sch: Schedule) -> list[str]:
    """The blocks directly in the body of the first `for i` loop, in order."""
    root = sch.mod["main"].body.block.body
    first = root.seq[0] if hasattr(root, "seq") else root
    return [s.body.block.name if hasattr(s, "body") else s.block.name for s in first.body.seq]


def test_cache_read_goes_right_before_the_first_consumer_in_the_producers_loop():
    sch = Schedule(two_users)
    sch.cache_read("B", 0, "global")
    assert _loop_body_blocks(sch) == ["A", "A_global", "B"]
    stage = sch.get(sch.get_block("A_global"))
    assert stage.iter_vars[0].dom.extent.value == 64  # the cache spans the root scope
    verify_trace_roundtrip(sch, two_users)
    _check(sch, _two_args, _two_expect)


def test_cache_read_for_chosen_consumers_goes_before_them():
    sch = Schedule(two_users)
    sch.cache_read("B", 0, "global", consumer_blocks=["Z"])
    assert _loop_body_blocks(sch) == ["A", "B"]  # B still reads A; the stage is at the root
    text = sch.mod["main"].script()
    assert "B[vi] = A[vi] * T.float32(2.0)" in text and "Z[vi] = A_global[vi] + B[vi]" in text
    verify_trace_roundtrip(sch, two_users)
    _check(sch, _two_args, _two_expect)


def test_cache_write_consumer_blocks_read_the_cache():
    sch = Schedule(two_users)
    sch.cache_write("A", 0, "local", consumer_blocks=["B"])
    text = sch.mod["main"].script()
    assert "B[vi] = A_local[vi] * T.float32(2.0)" in text
    assert "Z[vi] = A[vi] + B[vi]" in text
    verify_trace_roundtrip(sch, two_users)
    _check(sch, _two_args, _two_expect)


@T.prim_func(s_tir=True)
def guarded(A: T.Buffer((12, 24), "float32"), C: T.Buffer((10, 20), "float32")):
    for i, j in T.grid(12, 24):
        with T.sblock("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.sblock("inner"):
                T.where(vi < 10 and vj < 20)
                C[vi, vj] = A[vi, vj] * T.float32(3)


def test_nested_block_predicates_narrow_an_input_cache():
    sch = Schedule(guarded)
    sch.cache_read("outer", 0, "local")
    assert 'A_local = T.sblock_alloc_buffer((10, 20), scope="local")' in sch.mod["main"].script()
    rng = np.random.default_rng(1)
    _check(sch, lambda: (rng.standard_normal((12, 24)).astype("float32"),
                         np.zeros((10, 20), "float32")), lambda a: a[:10, :20] * 3)


@T.prim_func(s_tir=True)
def two_producers(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
    A = T.sblock_alloc_buffer((8,))
    for i in range(8):
        with T.sblock("A0"):
            vi = T.axis.S(8, i)
            A[vi] = X[vi]
    for i in range(8):
        with T.sblock("A1"):
            vi = T.axis.S(8, i)
            A[vi] = X[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("Y"):
            vi = T.axis.S(8, i)
            Y[vi] = A[vi]


def test_errors_leave_the_module_unchanged():
    sch = Schedule(two_producers)
    before = sch.mod
    with pytest.raises(ScheduleError, match="written by 2 blocks"):
        sch.cache_read("Y", 0, "global")
    with pytest.raises(ScheduleError, match="written by 2 blocks"):
        sch.cache_write("A0", 0, "global")
    with pytest.raises(ScheduleError, match="not a storage scope"):
        sch.cache_read("Y", 0, "no_such_scope")
    with pytest.raises(ScheduleError, match="index 3 is out of range"):
        sch.cache_read("Y", 3, "global")
    assert sch.mod is before


@T.prim_func(s_tir=True)
def opaque_update(D: T.Buffer((16,), "int32")):
    for i in range(1):
        with T.sblock("ext"):
            T.reads(D[0:16])
            T.writes(D[0:16])
            T.evaluate(T.call_extern("int32", "update", D.data))


def test_cache_inplace_moves_declared_regions_and_the_opaque_handle():
    from tvmlite.s_tir.schedule.state import ScheduleDebugMask

    sch = Schedule(opaque_update, debug_mask=ScheduleDebugMask.VERIFY_SREF_TREE)
    sch.cache_inplace("ext", 0, "local")
    text = sch.mod["main"].script()
    assert "T.reads(D_local[0:16])" in text and "T.writes(D_local[0:16])" in text
    assert 'T.call_extern("int32", "update", D_local.data)' in text
    # the copy-in stage may now be cached again: D has one producer, the copy-out
    sch.cache_read(sch.get_block("D_local"), 0, "global", [sch.get_block("D_local")])
    assert "D_global[v0] = D[v0]" in sch.mod["main"].script()


def test_reindex_cache_read_stages_for_the_block_only_where_cache_read_would():
    sch = Schedule(two_users)
    sch.reindex_cache_read("B", 0, "shared", lambda i: (i // 16, i % 16))
    assert _loop_body_blocks(sch) == ["A", "A_shared", "B"]
    text = sch.mod["main"].script()
    assert 'A_shared = T.sblock_alloc_buffer((4, 16), scope="shared")' in text
    assert "A_shared[vi // 16, vi % 16] = A[vi]" in text
    assert "Z[vi] = A[vi] + B[vi]" in text  # other readers keep the buffer
    verify_trace_roundtrip(sch, two_users)
    _check(sch, _two_args, _two_expect)


def test_reindex_cache_needs_one_point_access():
    sch = Schedule(tiles)
    with pytest.raises(ScheduleError, match="does not access one point of 'X'"):
        sch.reindex_cache_read("tile", 0, "shared", lambda i: (i,))
