"""get_tensorize_loop_mapping / tile_with_tensor_intrin with the x86 16x4 int8 dot product: which
block loops the description's loops map to (whatever the loop order), the tiled nest (split by
the description's extents, inner parts innermost in its order), numpy on the tiled kernel,
the replayed trace, padding when the extents do not divide."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite.s_tir.schedule.analysis import get_tensorize_loop_mapping
from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip
from tvmlite.s_tir.schedule.transform import tile_with_tensor_intrin
from tvmlite.s_tir.tensor_intrin.x86 import VNNI_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc
from tvmlite.script import tir as T
from tvmlite.tir.stmt import For
from tvmlite.tir.schedule import Schedule


@T.prim_func(s_tir=True)
def dense(A: T.Buffer((8, 64), "uint8"), B: T.Buffer((32, 64), "int8"),
          C: T.Buffer((8, 32), "int32")):
    for i, j, k in T.grid(8, 32, 64):
        with T.sblock("compute"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[vj, vk])


def _desc_loops():
    body = dot_product_16x4_u8i8i32_desc.body
    while not isinstance(body, For):  # the explicit root block, if the parser kept it
        body = body.block.body
    return [body, body.body]  # lane (16), k (4)


def test_mapping_pairs_iter_vars_from_the_innermost_out():
    sch = Schedule(dense)
    i, j, k = sch.get_loops("compute")
    for reorder in (False, True):
        if reorder:  # the mapping follows the bindings, not the loop order
            sch.reorder(k, i, j)
        info = get_tensorize_loop_mapping(sch, sch.get_block("compute"),
                                          dot_product_16x4_u8i8i32_desc)
        assert info is not None and info.block_iter_paddings is None
        by_desc = {id(d): sch.get(sref) for sref, d in info.loop_map.items()}
        lane, kk = _desc_loops()
        assert by_desc[id(lane)] is sch.get(j) and by_desc[id(kk)] is sch.get(k)
        assert sorted(info.desc_loop_indexer.values()) == [0, 1]


def test_tile_splits_and_moves_the_covered_loops_innermost():
    sch = Schedule(dense)
    block = sch.get_block("compute")
    tiled = tile_with_tensor_intrin(sch, block, VNNI_DOT_16x4_INTRIN)
    loops = [sch.get(rv) for rv in sch.get_loops(block)]
    assert [lp.loop_var.name for lp in loops] == ["i", "j_0", "k_0", "j_1", "k_1"]
    assert [int(lp.extent) for lp in loops] == [8, 2, 16, 16, 4]
    assert sch.get(tiled) is loops[3]
    verify_trace_roundtrip(sch, dense)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, (8, 64)).astype("uint8")
    b = rng.integers(-128, 127, (32, 64)).astype("int8")
    c = np.zeros((8, 32), "int32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_array_equal(c, a.astype("int32") @ b.astype("int32").T)


@T.prim_func(s_tir=True)
def dense_odd(A: T.Buffer((8, 62), "uint8"), B: T.Buffer((30, 62), "int8"),
              C: T.Buffer((8, 30), "int32")):
    for i, j, k in T.grid(8, 30, 62):
        with T.sblock("compute"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[vj, vk])


def test_extents_that_do_not_divide_need_padding():
    sch = Schedule(dense_odd)
    block = sch.get_block("compute")
    assert get_tensorize_loop_mapping(sch, block, dot_product_16x4_u8i8i32_desc) is None
    assert tile_with_tensor_intrin(sch, block, VNNI_DOT_16x4_INTRIN) is None
    info = get_tensorize_loop_mapping(sch, block, dot_product_16x4_u8i8i32_desc,
                                      allow_padding=True)
    assert info is not None and info.block_iter_paddings == [1, 16, 4]


def test_tile_with_padding_pads_the_block_first():
    sch = Schedule(dense_odd)
    block = sch.get_block("compute")
    tiled = tile_with_tensor_intrin(sch, block, VNNI_DOT_16x4_INTRIN, allow_padding=True)
    loops = [sch.get(rv) for rv in sch.get_loops(block)]
    assert [int(lp.extent) for lp in loops] == [8, 2, 16, 16, 4]  # 30 -> 32, 62 -> 64
    assert sch.get(tiled) is loops[3]
    rng = np.random.default_rng(1)
    a = rng.integers(0, 255, (8, 62)).astype("uint8")
    b = rng.integers(-128, 127, (30, 62)).astype("int8")
    c = np.zeros((8, 30), "int32")
    tvm.build(sch.mod)(a, b, c)
    np.testing.assert_array_equal(c, a.astype("int32") @ b.astype("int32").T)
